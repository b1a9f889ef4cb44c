package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowStop is an app that, on TERM, finishes its work in flight (7 s,
// longer than the old 6 s default grace period) and exits 3, as gunicorn
// finishing a long request.
const slowStop = `trap 'sleep 7; echo finished; exit 3' TERM; echo ready; sleep 100 & wait`

// TestDefaultGraceLetsTheRuntimeDecide: with no --grace-period and no
// post-stop hook, a TERM (docker stop, podman stop) gets no SIGKILL from
// tend: the app finishes its 7 s of work and its code comes out, as under
// tini. With --grace-period 6s, the app is cut at 6 s, as before.
func TestDefaultGraceLetsTheRuntimeDecide(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-v", "--", "sh", "-c", slowStop)
	p.stdout.wait(t, "ready", 10*time.Second)
	began := time.Now()
	p.signal(syscall.SIGTERM)
	code := p.wait(60 * time.Second)
	took := time.Since(began)
	t.Logf("defaults: exit %d after %s", code, took.Round(time.Millisecond))
	if code != 3 || !p.stdout.has("finished") || p.stderr.has("SIGKILL to the app") {
		t.Fatalf("exit %d, want the app's 3 after its work\nstdout:\n%s\nstderr:\n%s", code, p.stdout, p.stderr)
	}
	p = startTend(t, opts{pid1: true}, "--grace-period", "6s", "--", "sh", "-c", slowStop)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(60 * time.Second); code != 137 {
		t.Fatalf("--grace-period 6s: exit %d, want 137\n%s", code, p.stderr)
	}
}

// TestWrapperChildGetsTheGrace: dash does not exec the last command of
// `sh -c "CMD; ..."`, so a stop's TERM kills the shell and leaves its
// child. During a stop that child gets what is left of the grace period,
// not the 1 s drain timeout: a 3 s request in flight completes. tend says
// what it sees: the app (sh) exited and its child still runs. The code
// stays the app's (the shell's 143), as under tini.
func TestWrapperChildGetsTheGrace(t *testing.T) {
	dir := t.TempDir()
	child := filepath.Join(dir, "server.sh")
	if err := os.WriteFile(child, []byte(`trap 'sleep 3; echo finished; exit 0' TERM; echo ready; sleep 100 & wait`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startTend(t, opts{pid1: true}, "--", "sh", "-c", "sh "+child+"; echo after")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	code := p.wait(30 * time.Second)
	if code != 143 || !p.stdout.has("finished") {
		t.Fatalf("exit %d (want the shell's 143), child finished: %v\nstdout:\n%s\nstderr:\n%s", code, p.stdout.has("finished"), p.stdout, p.stderr)
	}
	if !p.stderr.has("the app (sh) exited 143; its child sh (pid ") || !p.stderr.has("still runs: exec it") {
		t.Fatalf("want the wrapper named:\n%s", p.stderr)
	}
}

// TestNotPID1UnderAnotherInit: a tend sidecar in a shared-PID pod, where
// PID 1 is the pod's init (pause, catatonit): orphans go to it and are
// reaped, so tini's "zombie reaping won't work" warning would be wrong;
// tend says it at -v, as information. Here PID 1 is a shell named
// catatonit.
func TestNotPID1UnderAnotherInit(t *testing.T) {
	dir := t.TempDir()
	init := filepath.Join(dir, "catatonit")
	if err := os.Symlink("/bin/sh", init); err != nil {
		t.Fatal(err)
	}
	// "; exit $c" keeps the shell PID 1 rather than exec tend.
	p := startTend(t, opts{shell: `exec unshare -pf --mount-proc ` + init + ` -c '"$TEND" -v -- "$FAKEAPP" exit 5; c=$?; exit $c'`})
	code := p.wait(30 * time.Second)
	if code != 5 || p.stderr.has("WARN") || !p.stderr.has("orphans go to PID 1 (catatonit)") {
		t.Fatalf("exit %d, want 5 and the info line, no warning:\n%s", code, p.stderr)
	}
	if strings.Contains(p.stderr.String(), "zombie reaping won't work") {
		t.Fatalf("the warning is still there:\n%s", p.stderr)
	}
}
