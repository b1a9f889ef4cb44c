package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A hook or probe that ignores TERM and moves itself into the app's process
// group (setpgid) used to escape its timeout: tend SIGKILLed the hook's own
// group, which was empty by then, counted ESRCH as success and waited for
// the hook forever. Now the attempt is over at its deadline: the process is
// killed through its pidfd as well, and the attempt fails then.

// escapeCmd is a hook or probe command that ignores TERM, joins the app's
// group, records that it did, and sleeps.
func escapeCmd(marker string) string {
	return `exec "$FAKEAPP" ignore TERM -- joinpgid "$TEND_APP_PID" ` + marker + ` sleep 1h`
}

// TestPreStopThatLeavesItsGroupTimesOut: the pre-stop escapes into the app's
// group; at the hook timeout it fails as timed out, and the stop goes on:
// the app gets TERM, exits 0, the tree drains, tend exits 0. (Before: tend
// never exited.)
func TestPreStopThatLeavesItsGroupTimesOut(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v", "--hook-timeout", "300ms", "--grace-period", "5s",
		"--pre-stop", escapeCmd(filepath.Join(dir, "escaped")),
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	waitFile(t, filepath.Join(dir, "escaped"), 10*time.Second)
	code := p.wait(20 * time.Second)
	if code != 0 || !p.stdout.has("got SIGTERM") {
		t.Fatalf("exit %d; the stop must go on after the hook's timeout\n%s\n%s", code, p.stdout, p.stderr)
	}
	if !p.stderr.has("pre-stop failed") || !p.stderr.has("timed out after 300ms") || p.stderr.has("pre-stop ran until the grace period") {
		t.Fatalf("the pre-stop must fail at its own timeout, not at the grace period:\n%s", p.stderr)
	}
}

// TestLiveProbeThatLeavesItsGroupFails: each attempt escapes into the app's
// group; each fails at the probe timeout, the failure threshold counts
// them, and tend stops the app with 75, as for any liveness failure. The
// probe ran again each period. (Before: no verdict ever; the probe never
// ran again and tend never exited.)
func TestLiveProbeThatLeavesItsGroupFails(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	p := startTend(t, opts{pid1: true},
		"--live-probe", `echo run >> `+runs+`; `+escapeCmd(filepath.Join(dir, "escaped")),
		"--probe-period", "100ms", "--probe-timeout", "300ms", "--probe-failure-threshold", "3",
		"--", fakeappBin, "signals", "TERM", "0")
	code := p.wait(30 * time.Second)
	if code != 75 || !p.stderr.has("liveness probe failed 3 times in a row") || !p.stderr.has("timed out") {
		t.Fatalf("want 75 after three timed-out attempts, got %d\n%s", code, p.stderr)
	}
	b, err := os.ReadFile(runs)
	if n := strings.Count(string(b), "run\n"); err != nil || n < 3 {
		t.Fatalf("the probe ran %d times, want at least 3 (%v)", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped")); err != nil {
		t.Fatalf("the probe never left its group: %v", err)
	}
}

// waitFile waits until path exists, failing the test at the deadline.
func waitFile(t *testing.T, path string, d time.Duration) {
	t.Helper()
	readWhenPresent(t, path, d)
}
