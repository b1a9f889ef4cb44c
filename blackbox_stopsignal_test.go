package main_test

import (
	"syscall"
	"testing"
	"time"
)

// TestStopSignalOnRuntimeTerm: with --stop-signal QUIT, the TERM that
// docker stop, podman stop or the kubelet sends begins a stop that sends
// the app QUIT (nginx's graceful shutdown), never TERM.
func TestStopSignalOnRuntimeTerm(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--stop-signal", "QUIT", "--", fakeappBin, "signals", "SIGQUIT", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 || p.stdout.has("got SIGTERM") || !p.stdout.has("got SIGQUIT") {
		t.Fatalf("want QUIT, not TERM, and the app's 0; got %d\nstdout:\n%s\nstderr:\n%s", code, p.stdout, p.stderr)
	}
}

// TestStoppedAppStopsAtOnce: an app frozen with SIGSTOP cannot act on the
// stop signal; SIGCONT right after it lets it stop cleanly at once rather
// than wait out the grace period for SIGKILL (exit 137).
func TestStoppedAppStopsAtOnce(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--grace-period", "60s", "--", fakeappBin, "signals", "SIGTERM", "7")
	p.stdout.wait(t, "ready", 10*time.Second)
	app := p.childOf(p.pid)
	if err := syscall.Kill(app, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGTERM)
	// Well inside the 60 s grace period: only SIGCONT can make it.
	if code := p.wait(20 * time.Second); code != 7 {
		t.Fatalf("want the app's own 7 from its TERM handler, got %d\nstderr:\n%s", code, p.stderr)
	}
}
