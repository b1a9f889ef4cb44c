package main_test

import (
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEmptyCommandIsUsage: ENTRYPOINT ["/tend","--"] with no CMD (or one
// cleared by --entrypoint) prints usage and exits 1, as tini and dumb-init;
// hooks alone do not make it a pause container. It used to run silently.
func TestEmptyCommandIsUsage(t *testing.T) {
	for _, args := range [][]string{{"--"}, {}, {"--pre-start", "true", "--"}, {"--health-addr", "127.0.0.1:0", "--"}} {
		p := startTend(t, opts{pid1: true}, args...)
		code := p.wait(10 * time.Second)
		if code != 1 || !strings.Contains(p.stderr.String(), "no program given") || !strings.Contains(p.stderr.String(), "--pause") {
			t.Fatalf("tend %q: want usage naming --pause and exit 1, got %d\n%s", args, code, p.stderr)
		}
	}
	if code, _, errOut := runTend(t, opts{}, "--pause", "--", "true"); code != 1 || !strings.Contains(errOut, "--pause runs no program") {
		t.Fatalf("--pause with a program: want 1, got %d\n%s", code, errOut)
	}
}

// TestPauseWhenAsked: --pause and TEND_PAUSE run no program until TERM,
// then exit 0; pre-start runs first (it used to panic in startAppNow,
// exit 2, once pre-start succeeded with no program).
func TestPauseWhenAsked(t *testing.T) {
	for _, o := range []struct {
		o    opts
		args []string
	}{
		{opts{pid1: true}, []string{"--pause"}},
		{opts{pid1: true, env: []string{"TEND_PAUSE=1"}}, nil},
	} {
		p := startTend(t, o.o, append([]string{"-v", "--pre-start", "echo pre-start-ran", "--post-stop", "echo post-stop-ran"}, o.args...)...)
		p.stdout.wait(t, "pre-start-ran", 10*time.Second)
		p.stderr.wait(t, "sidecar mode", 10*time.Second)
		p.signal(syscall.SIGTERM)
		if code := p.wait(10 * time.Second); code != 0 || !p.stdout.has("post-stop-ran") {
			t.Fatalf("pause mode with pre-start: want 0 and post-stop, got %d\nstdout:\n%s\nstderr:\n%s", code, p.stdout, p.stderr)
		}
	}
}

// TestSidecarPreStartAndNotStartedApp: probes with no program imply pause
// mode (the health responder); pre-start runs there; a liveness check on
// an app that has never been up leaves /livez 200 ("not started", as a
// native sidecar starts before its app) and /readyz 503 "waiting"; once
// the app was up, its failure turns /livez 503.
func TestSidecarPreStartAndNotStartedApp(t *testing.T) {
	target, addr := freeAddr(t), freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-vv", "--health-addr", addr, "--pre-start", "echo pre-start-ran",
		"--probe-period", "20ms", "--probe-failure-threshold", "1",
		"--ready-probe", "app=tcp://"+target, "--live-probe", "app=tcp://"+target)
	p.stdout.wait(t, "pre-start-ran", 10*time.Second)
	p.stderr.wait(t, "sidecar mode", 10*time.Second)
	p.stderr.wait(t, "phase pre-start -> pause", 10*time.Second)
	// Five failed liveness attempts, each over the threshold of 1.
	p.stderr.waitCount(t, "liveness probe app attempt failed", 5, 10*time.Second)
	if body := waitStatus(t, addr, "/readyz", 503, 10*time.Second); !strings.Contains(body, "waiting for the app") {
		t.Fatalf("/readyz before the app was up: %q", body)
	}
	if code, body := status(addr, "/livez"); code != 200 {
		t.Fatalf("/livez before the app was ever up: %d %q", code, body)
	}
	ln, err := net.Listen("tcp", target)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	// The liveness check has its own attempts: the app counts as up for it
	// only once one of them passed, which /readyz does not show.
	p.stderr.wait(t, "liveness probe app passed for the first time", 10*time.Second)
	_ = ln.Close() // the app goes down, having been up
	if body := waitStatus(t, addr, "/livez", 503, 10*time.Second); !strings.Contains(body, "liveness probe app failing") {
		t.Fatalf("/livez once the app was up and went down: %q", body)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("TERM ends pause mode with 0, got %d\n%s", code, p.stderr)
	}
}

// TestWaitFor: the app starts only once its dependency accepts
// connections; meanwhile /livez is 200 and /readyz 503 naming it.
func TestWaitFor(t *testing.T) {
	target, addr := freeAddr(t), freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-v", "--health-addr", addr, "--wait-for", "db=tcp://"+target,
		"--", "sh", "-c", "echo app-ran")
	p.stderr.wait(t, "waiting for db=tcp://"+target, 10*time.Second)
	waitStatus(t, addr, "/livez", 200, 10*time.Second)
	if body := waitStatus(t, addr, "/readyz", 503, 10*time.Second); !strings.Contains(body, "waiting for db=tcp://"+target) {
		t.Fatalf("/readyz while waiting: %q", body)
	}
	if p.stdout.has("app-ran") {
		t.Fatal("the app started before its dependency was up")
	}
	ln, err := net.Listen("tcp", target)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if code := p.wait(20 * time.Second); code != 0 || !p.stdout.has("app-ran") {
		t.Fatalf("want the app run and 0, got %d\nstdout:\n%s\nstderr:\n%s", code, p.stdout, p.stderr)
	}
	// A timeout: exit 69, naming what still fails; no app.
	code, out, errOut := runTend(t, opts{pid1: true}, "--wait-for", "tcp://"+freeAddr(t), "--wait-timeout", "300ms", "--", "sh", "-c", "echo app-ran")
	if code != 69 || strings.Contains(out, "app-ran") || !strings.Contains(errOut, "not up after 300ms") {
		t.Fatalf("wait timeout: want 69, no app, the reason; got %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
