package main_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPostStopPostReachesListenerAfterAppExit: a post-stop POST, in the
// string form and in JSON's httpPost with a body, reaches a real loopback
// listener after the app has exited (a Job's mesh sidecar told to quit,
// Istio's POST /quitquitquit); a POST answered 404 fails the hook, as a
// GET's 404 does not.
func TestPostStopPostReachesListenerAfterAppExit(t *testing.T) {
	var appPid atomic.Int64
	var mu sync.Mutex
	var got []string
	var firstAt time.Time
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Checked first: whether the app was still there when the
		// request arrived.
		_, err := os.Stat(filepath.Join("/proc", strconv.FormatInt(appPid.Load(), 10)))
		gone := appPid.Load() > 0 && os.IsNotExist(err)
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10)) // a short body shows in the comparison
		mu.Lock()
		if firstAt.IsZero() {
			firstAt = time.Now()
		}
		got = append(got, fmt.Sprintf("%s %s len=%s body=%q appGone=%v", r.Method, r.URL.Path, r.Header.Get("Content-Length"), body, gone))
		mu.Unlock()
		if r.URL.Path == "/missing" {
			w.WriteHeader(404)
		}
	})}
	go func() { _ = srv.Serve(ln) }()  // ends at Close
	defer func() { _ = srv.Close() }() // test end
	port := ln.Addr().(*net.TCPAddr).Port
	start := filepath.Join(t.TempDir(), "go")
	p := startTend(t, opts{}, "-v",
		"--post-stop", fmt.Sprintf("POST http://127.0.0.1:%d/quitquitquit", port),
		"--post-stop", fmt.Sprintf(`{"httpPost":{"port":%d,"path":"/shutdown","body":"bye now","httpHeaders":[{"name":"Content-Type","value":"text/plain"}]}}`, port),
		"--post-stop", fmt.Sprintf("POST http://127.0.0.1:%d/missing", port),
		"--", fakeappBin, "waitfor", start, "exit", "3")
	appPid.Store(int64(p.childOf(p.pid)))
	touched := time.Now()
	if err := os.WriteFile(start, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code := p.wait(60 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`POST /quitquitquit len=0 body="" appGone=true`,
		`POST /shutdown len=7 body="bye now" appGone=true`,
		`POST /missing len=0 body="" appGone=true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the listener got\n%s\nwant\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), p.stderr)
	}
	if code != 3 || !p.stderr.has("status 404") {
		t.Errorf("exit %d (want the app's 3), and the 404 must fail the post-stop:\n%s", code, p.stderr)
	}
	if !firstAt.IsZero() {
		t.Logf("app released -> first POST at the listener: %s; -> tend's exit after three POSTs: %s", firstAt.Sub(touched), time.Since(touched))
	}
}
