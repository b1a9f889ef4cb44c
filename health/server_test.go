package health

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseAddr(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:8081", ":8081", "[::1]:9", "localhost:0", "0.0.0.0:65535"} {
		if err := ParseAddr(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"not-an-address", "127.0.0.1", "127.0.0.1:http", "1.2.3.4:70000", ":-1", "a b:1"} {
		if err := ParseAddr(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: want an error naming it, got %v", bad, err)
		}
	}
}

func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", "test")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve() }() // returns nil after Close
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func get(t *testing.T, s *Server, method, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+s.Addr().String()+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServerEndpoints(t *testing.T) {
	s := startServer(t)
	if code, body := get(t, s, "GET", "/readyz"); code != 503 || !strings.Contains(body, "starting") {
		t.Fatalf("before the first snapshot: %d %q", code, body)
	}
	s.Publish(&Status{Live: true, Ready: false, ReadyReason: "not ready: post-start running", Published: time.Now(), AppExitCode: -1})
	if code, body := get(t, s, "GET", "/readyz"); code != 503 || body != "not ready: post-start running\n" {
		t.Fatalf("readyz: %d %q", code, body)
	}
	if code, body := get(t, s, "GET", "/livez"); code != 200 || body != "ok\n" {
		t.Fatalf("livez: %d %q", code, body)
	}
	s.Publish(&Status{Live: true, Ready: true, Published: time.Now()})
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/readyz", 200}, {"HEAD", "/readyz", 200}, {"GET", "/readyz?verbose", 200},
		{"GET", "/", 404}, {"GET", "/healthz", 404}, {"POST", "/readyz", 405}, {"DELETE", "/metrics", 405},
	} {
		if code, _ := get(t, s, c.method, c.path); code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, code, c.code)
		}
	}
	if _, body := get(t, s, "HEAD", "/livez"); body != "" {
		t.Errorf("HEAD returned a body %q", body)
	}
	s.Publish(&Status{Live: true, Ready: true, Published: time.Now().Add(-time.Minute)})
	if code, body := get(t, s, "GET", "/livez"); code != 503 || !strings.Contains(body, "unresponsive") {
		t.Fatalf("a stale snapshot means a stuck loop: %d %q", code, body)
	}
}

func TestListenErrors(t *testing.T) {
	s := startServer(t)
	if _, err := Listen(s.Addr().String(), "test"); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("taken port: %v", err)
	}
	if _, err := Listen("not-an-address", "test"); err == nil || !strings.Contains(err.Error(), "not-an-address") {
		t.Fatalf("bad address: %v", err)
	}
}

// TestHeldConnections holds 1,000 idle connections and a few slowloris
// clients open, and checks that /readyz still answers.
func TestHeldConnections(t *testing.T) {
	s := startServer(t)
	s.Publish(&Status{Live: true, Ready: true, Published: time.Now()})
	var held []net.Conn
	defer func() {
		for _, c := range held {
			_ = c.Close() // test cleanup
		}
	}()
	for i := 0; i < 1000; i++ {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, c)
	}
	stop := make(chan struct{})
	defer close(stop)
	for i := 0; i < 10; i++ {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		go func(c net.Conn) { // slowloris: one header byte at a time
			for _, b := range []byte("GET /readyz HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaa") {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
			}
		}(c)
	}
	var worst time.Duration
	for i := 0; i < 50; i++ {
		start := time.Now()
		if code, _ := get(t, s, "GET", "/readyz"); code != 200 {
			t.Fatalf("readyz %d under held connections", code)
		}
		if d := time.Since(start); d > worst {
			worst = d
		}
	}
	t.Logf("worst /readyz latency with 1,010 held connections: %s", worst)
	if worst > 2*time.Second {
		t.Fatalf("readyz took %s", worst)
	}
}
