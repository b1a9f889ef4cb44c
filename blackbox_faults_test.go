package main_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestHookDaemonIsDrainedAtStop(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v", "--drain-timeout", "300ms",
		"--post-start", `"$FAKEAPP" daemon `+dir+`/d.pid && echo daemon-up`,
		"--post-stop", `test -e /proc/$(cat `+dir+`/d.pid) && echo daemon-alive; echo checked`,
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "daemon-up", 10*time.Second)
	// A stop that overtakes a running post-start kills its group, daemon
	// and all; this case is about a post-start that has finished.
	p.stderr.wait(t, "post-start succeeded", 10*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 || !p.stdout.has("checked") || p.stdout.has("daemon-alive") {
		t.Fatalf("exit %d\n%s\n%s", code, p.stdout, p.stderr)
	}
	if !p.stderr.has("sent SIGKILL") {
		t.Fatalf("the TERM-ignoring daemon needs SIGKILL:\n%s", p.stderr)
	}
}

func TestKillToAppMidStop(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-v", "--pre-stop", "echo prestop; sleep 0.2",
		"--", fakeappBin, "ignore", "TERM", "--", "signals", "none", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	p.stdout.wait(t, "prestop", 5*time.Second)
	p.stderr.wait(t, "sending SIGTERM to the app", 5*time.Second) // which ignores it
	// Someone else kills the app in the middle of the stop.
	app := p.childOf(p.pid)
	if err := syscall.Kill(app, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(10 * time.Second); code != 137 {
		t.Fatalf("want the app's 137, got %d\n%s", code, p.stderr)
	}
}

func TestAppExecsIntoAnotherProgram(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--", "sh", "-c", `exec "$FAKEAPP" signals TERM 6`)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGUSR2)
	p.stdout.wait(t, "got SIGUSR2", 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 6 {
		t.Fatalf("exit %d", code)
	}
}

func TestClosedPipesDoNotKillTend(t *testing.T) {
	// tend's stdout and stderr are pipes whose readers are gone: every log
	// line and every app write hits EPIPE. tend must still exit with the
	// app's code rather than die of SIGPIPE.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Close() // the reader is gone before tend starts
	cmd := exec.Command("unshare", "-pf", "--mount-proc", tendBin, "-vvv", "-w", "--post-stop", "echo post-stop-output",
		"--", "sh", "-c", `"$FAKEAPP" storm 20 >/dev/null 2>&1; exit 7`)
	cmd.Env = append(os.Environ(), "FAKEAPP="+fakeappBin)
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	_ = w.Close() // our copy
	if code := exitCodeOf(err); code != 7 {
		t.Fatalf("want the app's 7, got %d (%v)", code, err)
	}
}

func TestUsageErrorToClosedPipeExitsOne(t *testing.T) {
	// A usage error whose one line hits EPIPE still exits 1, as tini
	// does, not 2 (the Go runtime's exit when PID 1 survives its SIGPIPE)
	// nor 141 (dead of it, not PID 1).
	for _, pid1 := range []bool{true, false} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Close() // the reader is gone before tend starts
		cmd := exec.Command(tendBin, "--no-such-flag", "--", "true")
		if pid1 {
			cmd = exec.Command("unshare", "-pf", "--mount-proc", tendBin, "--no-such-flag", "--", "true")
		}
		cmd.Stdout, cmd.Stderr = w, w
		err = cmd.Run()
		_ = w.Close() // our copy
		if code := exitCodeOf(err); code != 1 {
			t.Errorf("PID 1 %v: want 1, got %d (%v)", pid1, code, err)
		}
	}
}

func TestExecHooksWithoutShellOnReadOnlyRoot(t *testing.T) {
	root := scratchRoot(t) // skips unless root
	if err := os.Mkdir(filepath.Join(root, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A root with only two static binaries: no /bin/sh, mounted read-only,
	// with tend as PID 1 of a new namespace.
	// The app waits until post-start has run (its second command leaves a
	// file in a tmpfs), then orphans five processes and exits 4.
	script := `mount --bind "$ROOT" "$ROOT" && mount -o remount,bind,ro "$ROOT" && mount -t proc proc "$ROOT/proc" && ` +
		`mount -t tmpfs tmp "$ROOT/tmp" && ` +
		`exec chroot "$ROOT" /tend -v --post-start '["/fakeapp","info","post-start"]' --post-start '["/fakeapp","touch","/tmp/ran"]' ` +
		`--pre-stop '["/fakeapp","exit","0"]' --post-stop '["/fakeapp","info","post-stop"]' -- /fakeapp waitfor /tmp/ran spawn 5 4`
	cmd := exec.Command("unshare", "-pfm", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "ROOT="+root)
	out, err := cmd.CombinedOutput()
	if code := exitCodeOf(err); code != 4 {
		t.Fatalf("want the app's 4, got %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, "sh")); err == nil {
		t.Fatal("the root must hold no shell")
	}
	for _, want := range []string{"args=post-start", "args=post-stop", "post-stop succeeded"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("missing %q:\n%s", want, out)
		}
	}
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

func TestFaultHookIgnoringTermIsKilledWithItsGroup(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v", "--hook-timeout", "300ms",
		"--pre-stop", `trap '' TERM; sleep 60 & echo $! > `+dir+`/child; echo hook-up; wait`,
		"--post-stop", `test -e /proc/$(cat `+dir+`/child) && echo child-alive; echo checked`,
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	p.stdout.wait(t, "hook-up", 5*time.Second)
	if code := p.wait(10 * time.Second); code != 0 || !p.stderr.has("pre-stop failed") || !p.stderr.has("timed out") {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	// The child ignores TERM too; had the timeout not killed the group,
	// only the drain's SIGKILL would have ended it.
	if !p.stdout.has("checked") || p.stdout.has("child-alive") || p.stderr.has("sent SIGKILL") {
		t.Fatalf("the hook's group must be killed at the timeout:\n%s\n%s", p.stdout, p.stderr)
	}
}

// TestIdleConnectionsCannotFailTheLiveProbe: under `ulimit -n 256`, 300
// idle connections to the health port once took the fds the liveness probe
// needed (pipe2: too many open files), and tend stopped a healthy app with
// 75. The server's cap now leaves room for hooks and probes, and a probe
// that tend could not run is "unknown", never a failure.
func TestIdleConnectionsCannotFailTheLiveProbe(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{shell: `ulimit -n 256 && exec "$TEND" --health-addr ` + addr +
		` --live-probe true --probe-period 50ms -- sleep 60`})
	waitStatus(t, addr, "/livez", 200, 10*time.Second)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			_ = c.Close() // test cleanup
		}
	}()
	for i := 0; i < 300; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, c)
	}
	before := scrapeProbe(t, addr)
	// Twenty more attempts, with every connection still held.
	for deadline := time.Now().Add(20 * time.Second); scrapeProbe(t, addr) < before+20; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the live probe stopped running: %v\n%s", scrapeProbe(t, addr), p.stderr)
		}
	}
	if p.stderr.has("liveness probe failed") || p.stderr.has("too many open files") {
		t.Fatalf("idle connections starved the probe:\n%s", p.stderr)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 143 {
		t.Fatalf("want 143 after TERM (sleep's own death by TERM), got %d\n%s", code, p.stderr)
	}
}

// scrapeProbe is how many liveness attempts passed, from /metrics.
func scrapeProbe(t *testing.T, addr string) float64 {
	t.Helper()
	_, body := status(addr, "/metrics")
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, `tend_probe_results_total{probe="live",kind="live",result="success"} `) {
			n, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			return n
		}
	}
	return 0
}
