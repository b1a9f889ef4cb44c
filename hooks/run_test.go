package hooks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/reaper"
)

// startReaper runs the reaper the way tend's loop does: drain on every
// SIGCHLD. The test process is not PID 1, so only its own children exit here.
func startReaper(t *testing.T) *reaper.Reaper {
	t.Helper()
	r := reaper.New(nil)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	done := make(chan struct{})
	t.Cleanup(func() { signal.Stop(ch); close(done) })
	go func() {
		tick := time.NewTicker(50 * time.Millisecond) // belt and braces for coalesced SIGCHLDs from other tests
		defer tick.Stop()
		for {
			select {
			case <-ch:
			case <-tick.C:
			case <-done:
				return
			}
			_, _ = r.Reap() // errors surface as missing exits in the asserts
		}
	}()
	return r
}

func TestRunSequenceAndFailure(t *testing.T) {
	r := startReaper(t)
	dir := t.TempDir()
	ok := []Command{{Shell: "echo one >> " + dir + "/log"}, {Argv: []string{"sh", "-c", "echo two >> " + dir + "/log"}}}
	if err := Run(context.Background(), r, ok, os.Environ(), 5*time.Second); err != nil {
		t.Fatalf("ok hooks failed: %v", err)
	}
	b, _ := os.ReadFile(dir + "/log")
	if string(b) != "one\ntwo\n" {
		t.Fatalf("hooks ran out of order: %q", b)
	}
	bad := []Command{{Shell: "exit 7"}, {Shell: "echo never >> " + dir + "/log"}}
	err := Run(context.Background(), r, bad, os.Environ(), 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exit code 7") {
		t.Fatalf("want exit code 7 failure, got %v", err)
	}
	if b, _ := os.ReadFile(dir + "/log"); strings.Contains(string(b), "never") {
		t.Fatal("a failed command must stop the hook")
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	r := startReaper(t)
	pidfile := t.TempDir() + "/bg"
	// The hook leaves a background child in its group, then hangs.
	cmd := []Command{{Shell: "sleep 60 & echo $! > " + pidfile + "; exec sleep 60"}}
	start := time.Now()
	err := Run(context.Background(), r, cmd, os.Environ(), 300*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("want timeout, got %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("timeout took %s", el)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break // gone, or dead and waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("background child %s of the hook survived the group kill", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunCancel(t *testing.T) {
	r := startReaper(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	why := errors.New("a stop began")
	go func() { time.Sleep(100 * time.Millisecond); cancel(why) }()
	err := Run(ctx, r, []Command{{Shell: "exec sleep 60"}}, os.Environ(), time.Minute)
	if !errors.Is(err, why) {
		t.Fatalf("want cancellation cause, got %v", err)
	}
}

// runBounded runs cmds and fails the test if Run has not returned within d:
// the old code waited for the hook's exit forever.
func runBounded(t *testing.T, d time.Duration, ctx context.Context, s Starter, cmds []Command, env []string, timeout time.Duration) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- Run(ctx, s, cmds, env, timeout) }()
	select {
	case err := <-res:
		return err
	case <-time.After(d):
		t.Fatalf("Run did not return within %s of its deadline", d)
	}
	return nil
}

// TestRunReportsAtDeadlineUncollected: nothing reaps here, so the killed
// command's exit never reaches Done, as for a process that dies late (in
// uninterruptible sleep, say). The attempt still fails at its deadline.
func TestRunReportsAtDeadlineUncollected(t *testing.T) {
	r := reaper.New(nil) // not Reap()ed until the end of this test
	fds := openFDs(t)
	err := runBounded(t, 10*time.Second, context.Background(), r, []Command{{Shell: "exec sleep 60"}}, os.Environ(), 200*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("want a timeout at the deadline, got %v", err)
	}
	// Collect the killed child, so no zombie outlives the test.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if none, _ := r.Reap(); none {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the timed-out command was never killed")
		}
	}
	// Its late exit went to a Done that nobody reads: no panic, and its
	// pidfd and pipes are closed all the same (a hook's output pipe once
	// its last writer is gone).
	// At most as many as before: earlier tests' pipes may close meanwhile.
	for deadline := time.Now().Add(10 * time.Second); openFDs(t) > fds; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d fds open before the run, %d after", fds, openFDs(t))
		}
	}
}

// openFDs counts the test process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestRunKillsCommandThatLeftItsGroup: the command ignores TERM and moves
// into another process group, so a kill of its own group reaches nobody.
// Once it has, the hook is cut short (as a stop cuts a post-start; the
// timeout takes the same path): it is killed through its pidfd, and Run
// returns at once.
func TestRunKillsCommandThatLeftItsGroup(t *testing.T) {
	r := startReaper(t)
	holder := exec.Command("sleep", "60") // leads the group the hook joins
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill() }) // reaped by the test's reaper
	pidfile := filepath.Join(t.TempDir(), "pid")
	env := append(os.Environ(), escapeEnv+"="+strconv.Itoa(holder.Process.Pid), escapeFileEnv+"="+pidfile)
	ctx, cancel := context.WithCancelCause(context.Background())
	why := errors.New("a stop began")
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(pidfile); err == nil {
				break // it has left its group
			}
		}
		cancel(why)
	}()
	err := runBounded(t, 30*time.Second, ctx, r, []Command{{Argv: []string{os.Args[0]}}}, env, time.Minute)
	if !errors.Is(err, why) {
		t.Fatalf("want the cancellation, got %v", err)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the command never left its group: %v", err)
	}
	pid := strings.TrimSpace(string(b))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break // gone, or dead and waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command %s that left its group survived", pid)
		}
	}
}
