package http1

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawServer accepts one connection on ln, reads a request head and the
// body its Content-Length announces, answers with answer, and sends what
// it read on the returned channel.
func rawServer(t *testing.T, ln net.Listener, answer string) <-chan string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- "accept: " + err.Error()
			return
		}
		defer func() { _ = c.Close() }() // the test reads what was sent, not the close
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(c)
		var b strings.Builder
		n := 0
		for {
			line, err := br.ReadString('\n')
			b.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v)) // a bad one reads no body, which the test sees
			}
		}
		body := make([]byte, n)
		_, _ = io.ReadFull(br, body) // a short body shows in what the test compares
		b.Write(body)
		_, _ = io.WriteString(c, answer) // the client's result says whether it arrived
		got <- b.String()
	}()
	return got
}

// TestPost: a POST sends its method, Content-Length and body, and a 3xx is
// its answer, not followed (as curl -X POST without -L), even where a
// GET would follow it.
func TestPost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // test end
	got := rawServer(t, ln, "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := Get(ctx, Request{URL: "http://" + ln.Addr().String() + "/quitquitquit", Method: "POST", Body: []byte("bye\x00!"), FollowRedirects: true,
		Headers: []Header{{"Content-Length", "999"}, {"Content-Type", "text/plain"}}})
	if err != nil || resp.Code != 302 {
		t.Fatalf("POST: %+v, %v; want the 302 as the answer", resp, err)
	}
	req := <-got
	want := "POST /quitquitquit HTTP/1.1\r\nHost: " + ln.Addr().String() + "\r\nUser-Agent: tend\r\nAccept: */*\r\nConnection: close\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nbye\x00!"
	if req != want {
		t.Errorf("request\n%q\nwant\n%q", req, want)
	}
	// An empty POST still says Content-Length: 0, as curl -X POST.
	got = rawServer(t, ln, "HTTP/1.1 204 No Content\r\n\r\n")
	if resp, err := Get(ctx, Request{URL: "http://" + ln.Addr().String() + "/", Method: "POST"}); err != nil || resp.Code != 204 {
		t.Fatalf("empty POST: %+v, %v", resp, err)
	}
	if req := <-got; !strings.Contains(req, "\r\nContent-Length: 0\r\n") || !strings.HasPrefix(req, "POST / ") {
		t.Errorf("empty POST sent %q", req)
	}
	for _, r := range []Request{
		{URL: "http://127.0.0.1:1/", Method: "PUT"},
		{URL: "http://127.0.0.1:1/", Method: "POST", Body: make([]byte, MaxBody+1)},
	} {
		if _, err := Get(ctx, r); err == nil || strings.Contains(err.Error(), "refused") {
			t.Errorf("%s with a %d-byte body: %v, want refused before dialing", r.Method, len(r.Body), err)
		}
	}
}

// TestUnixSocket: http://unix:/PATH:/URI reaches an HTTP server (net/http's,
// which shares no code with tend's client) on a unix socket with Host
// localhost, as curl --unix-socket and nginx send; a relative redirect
// stays on the socket, and one to another target is not followed.
func TestUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "app.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 8)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Method + " " + r.Host + " " + r.URL.RequestURI()
		switch r.URL.Path {
		case "/to":
			w.Header().Set("Location", r.URL.Query().Get("loc"))
			w.WriteHeader(302)
		case "/fail":
			w.WriteHeader(503)
		}
	})}
	go func() { _ = srv.Serve(ln) }()  // ends at Close
	defer func() { _ = srv.Close() }() // test end
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		url  string
		code int
		seen []string
		note string
	}{
		{"http://unix:" + sock + ":/healthz?a=1", 200, []string{"GET localhost /healthz?a=1"}, ""},
		{"http://unix:" + sock, 200, []string{"GET localhost /"}, ""},
		{"http://unix:" + sock + ":/to?loc=/fail", 503, []string{"GET localhost /to?loc=/fail", "GET localhost /fail"}, ""},
		{"http://unix:" + sock + ":/to?loc=http://localhost:1/x", 302, []string{"GET localhost /to?loc=http://localhost:1/x"}, "not followed"},
	} {
		resp, err := Get(ctx, Request{URL: c.url, FollowRedirects: true})
		if err != nil || resp.Code != c.code || !strings.Contains(resp.Note, c.note) {
			t.Errorf("%s: %+v, %v; want %d, note %q", c.url, resp, err, c.code, c.note)
		}
		for _, w := range c.seen {
			if s := <-seen; s != w {
				t.Errorf("%s: server saw %q, want %q", c.url, s, w)
			}
		}
	}
	// POST over the socket, and a socket that is not there.
	if resp, err := Get(ctx, Request{URL: "http://unix:" + sock + ":/quit", Method: "POST"}); err != nil || resp.Code != 200 || <-seen != "POST localhost /quit" {
		t.Errorf("POST on the socket: %+v, %v", resp, err)
	}
	if _, err := Get(ctx, Request{URL: "http://unix:" + sock + ".gone:/"}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing socket: %v", err)
	}
}
