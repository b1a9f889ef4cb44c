package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/reaper"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in   string
		kind string // the Checker's type, "" when rejected
	}{
		{"http://127.0.0.1:8080/healthz", "probe.HTTP"},
		{"http://localhost/x", "probe.HTTP"},
		{"tcp://127.0.0.1:5432", "probe.TCP"},
		{"tcp://db:5432", "probe.TCP"},
		{"pg_isready -q", "probe.Command"},
		{`["/bin/check","--fast"]`, "probe.Command"},
		{"http://", ""},
		{"https://x:1/", "probe.HTTP"},
		{"https://[::1]:8443/healthz", "probe.HTTP"},
		{"https://", ""},
		{"https://x:/", ""},
		{"grpc://x:1", ""},
		{"echo http://x", "probe.Command"},
		{"tcp://nohost", ""},
		{"tcp://", ""},
		{"", ""},
		{"[", ""},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if (err == nil) != (c.kind != "") || (err == nil && fmt.Sprintf("%T", s) != c.kind) {
			t.Errorf("ParseSpec(%q) = %+v, %v", c.in, s, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("multi-line error %q", err)
		}
	}
}

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

func TestThreshold(t *testing.T) {
	p := Params{FailureThreshold: 3, SuccessThreshold: 2}
	th := NewThreshold(p, true)
	steps := []struct {
		ok             bool
		state, changed bool
	}{
		{false, true, false}, {false, true, false}, {true, true, false}, // a success resets the run
		{false, true, false}, {false, true, false}, {false, false, true},
		{true, false, false}, {false, false, false}, {true, false, false}, {true, true, true},
	}
	for i, s := range steps {
		st, ch := th.Observe(s.ok)
		if st != s.state || ch != s.changed {
			t.Fatalf("step %d (%v): got %v,%v want %v,%v", i, s.ok, st, ch, s.state, s.changed)
		}
	}
}

func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0")
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
	if _, err := Listen(s.Addr().String()); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("taken port: %v", err)
	}
	if _, err := Listen("not-an-address"); err == nil || !strings.Contains(err.Error(), "not-an-address") {
		t.Fatalf("bad address: %v", err)
	}
}

func TestCheck(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
		case "/redirect":
			w.WriteHeader(302)
		case "/slow":
			time.Sleep(500 * time.Millisecond)
		default:
			w.WriteHeader(503)
		}
	}))
	defer ok.Close()
	if err := Check(ok.URL+"/ok", time.Second); err != nil {
		t.Errorf("200: %v", err)
	}
	if err := Check(ok.URL+"/redirect", time.Second); err != nil {
		t.Errorf("302 counts as success: %v", err)
	}
	if err := Check(ok.URL+"/down", time.Second); err == nil || err.Error() != "status 503" {
		t.Errorf("503: %v", err)
	}
	if err := Check(ok.URL+"/slow", 100*time.Millisecond); err == nil || err.Error() != "timed out" {
		t.Errorf("slow: %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	_ = ln.Close()
	if err := Check("http://"+closed+"/", time.Second); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("closed port: %v", err)
	}
}

func TestHTTPAndTCPProbes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthy" {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for spec, want := range map[string]bool{
		srv.URL + "/healthy":                    true,
		srv.URL + "/sick":                       false,
		"tcp://" + srv.Listener.Addr().String(): true,
		"tcp://127.0.0.1:1":                     false,
	} {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(ctx, Exec{}, time.Second); (err == nil) != want {
			t.Errorf("%s: got %v, want ok=%v", spec, err, want)
		}
	}
}

// reaperLoop drives a reaper on SIGCHLD, as tend's loop does.
func reaperLoop(t *testing.T) *reaper.Reaper {
	r := reaper.New(nil)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	done := make(chan struct{})
	t.Cleanup(func() { signal.Stop(ch); close(done) })
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ch:
			case <-tick.C:
			case <-done:
				return
			}
			_, _ = r.Reap() // a failure shows up as a missing result below
		}
	}()
	return r
}

func TestExecProbeAndRun(t *testing.T) {
	r := reaperLoop(t)
	for spec, want := range map[string]string{"exit 0": "", "exit 1": "exit code 1", `["sleep","5"]`: "timed out"} {
		s, _ := ParseSpec(spec)
		err := s.Check(context.Background(), Exec{Starter: r, Env: os.Environ()}, 300*time.Millisecond)
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	s, _ := ParseSpec("exit 1")
	out := make(chan error)
	ctx, cancel := context.WithCancel(context.Background())
	go Run(ctx, s, Params{Period: 10 * time.Millisecond, Timeout: time.Second}, Exec{Starter: r, Env: os.Environ()},
		func(err error) bool {
			select {
			case out <- err:
				return true
			case <-ctx.Done():
				return false
			}
		})
	for i := 0; i < 3; i++ {
		if err := <-out; err == nil || !strings.Contains(err.Error(), "exit code 1") {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	cancel()
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

func TestMetricsEscaping(t *testing.T) {
	if got := labels("a", `x"y\z`+"\n"); got != `{a="x\"y\\z\n"}` {
		t.Fatalf("labels: %s", got)
	}
	var h Histogram
	h.Observe(0.001)
	h.Observe(100)
	if h.Count != 2 || h.Counts[0] != 1 || fmt.Sprint(h.Sum) != "100.001" {
		t.Fatalf("histogram %+v", h)
	}
}

func TestResourceErrorsAreUnknown(t *testing.T) {
	for _, err := range []error{
		&os.SyscallError{Syscall: "pipe2", Err: syscall.EMFILE},
		fmt.Errorf("fork/exec /bin/sh: %w", syscall.EAGAIN),
		&net.OpError{Op: "dial", Err: &os.SyscallError{Syscall: "socket", Err: syscall.ENFILE}},
	} {
		if c := classify(err); !errors.Is(c, ErrUnknown) || strings.Contains(c.Error(), "\n") {
			t.Errorf("%v: want ErrUnknown, got %v", err, c)
		}
	}
	for _, err := range []error{errors.New("exit code 1"), syscall.ECONNREFUSED, fmt.Errorf("dial: %w", syscall.ECONNREFUSED)} {
		if c := classify(err); errors.Is(c, ErrUnknown) {
			t.Errorf("%v: the target's failure must stay a failure", err)
		}
	}
}
