package main_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestProbeNoteAndUserAgent: an HTTP probe whose target redirects to
// another host passes, as the kubelet's, and the kubelet records a warning
// event for it: tend logs the note, once while it stays the same. The
// probe's User-Agent names the version --version prints.
func TestProbeNoteAndUserAgent(t *testing.T) {
	var ua atomic.Value
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		attempts.Add(1)
		_, port, _ := net.SplitHostPort(r.Host)
		http.Redirect(w, r, "http://localhost:"+port+"/elsewhere", http.StatusFound) // another host name
	}))
	defer srv.Close()
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--ready-probe", srv.URL+"/ready",
		"--probe-period", "20ms", "--", fakeappBin, "signals", "TERM", "0")
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	line := p.stderr.wait(t, "not followed", 10*time.Second)
	for start := time.Now(); attempts.Load() < 5 && time.Since(start) < 10*time.Second; {
		_, _ = status(addr, "/readyz") // a few more attempts, each with the same note
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
	if !strings.Contains(line, "ready check ready") || !strings.Contains(line, "redirect to http://localhost:") {
		t.Errorf("note line %q", line)
	}
	if n := strings.Count(p.stderr.String(), "not followed"); n != 1 {
		t.Errorf("the same note logged %d times in %d attempts, want once:\n%s", n, attempts.Load(), p.stderr.String())
	}
	_, version, _ := runTend(t, opts{}, "--version")
	if want := "tend/" + strings.TrimPrefix(strings.TrimSpace(version), "tend "); ua.Load() != want {
		t.Errorf("User-Agent %q, want %q", ua.Load(), want)
	}
}
