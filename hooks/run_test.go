package hooks

import (
	"context"
	"errors"
	"os"
	"os/signal"
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
