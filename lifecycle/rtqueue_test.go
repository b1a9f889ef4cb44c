package lifecycle

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/signals"
)

// TestPID1TermBehindRealtimeQueue: tend, as PID 1, is stopped while a
// flood of realtime signals cycling over 35..64 is sent to it, then sent
// TERM and continued. Uncapped, the kernel queued every one of them and
// tend's threads spent tens of seconds emptying the queue (a quadratic
// walk, signals/queue_linux.go) before the loop saw TERM. Capped, at most
// QueueLimit wait; TERM is acted on and the app's code comes back, and the
// realtime signals still reach the app.
func TestPID1TermBehindRealtimeQueue(t *testing.T) {
	n := 60000
	if os.Getenv("TEND_TORTURE") == "1" {
		n = 200000
	}
	cmd, _, out := pid1(t, "run", fakeappBin, "signals", "SIGTERM", "0")
	readUntil(t, out, "ready", 10*time.Second)
	pid := cmd.Process.Pid
	// The cap is set right after the app's start; wait for it rather
	// than for a time.
	waitQueueLimit(t, pid, signals.QueueLimit, 10*time.Second)
	// Realtime signals are forwarded once registered, shortly after the
	// app's start (signals.RealtimeDelay): send one until the app has it.
	stopSending := make(chan struct{})
	go func() {
		for {
			_ = syscall.Kill(pid, syscall.Signal(40)) // an error shows as no "got" line below
			select {
			case <-stopSending:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	line := readUntil(t, out, "got ", 10*time.Second)
	close(stopSending)
	t.Logf("before the flood: %s", line)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := syscall.Kill(pid, syscall.Signal(35+i%30)); err != nil {
			t.Fatalf("signal %d of %d: %v", i, n, err)
		}
	}
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// A deadline that only a hang misses: uncapped, 30,000 queued
	// signals held TERM for 2.9 s here, 60,000 about four times that
	// (the walk is quadratic), 90,000 for 35 s; capped, about 10 ms.
	var realtime int
	type result struct {
		line string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		for {
			s, err := out.ReadString('\n')
			switch {
			case err != nil:
				done <- result{err: err}
				return
			case strings.HasPrefix(s, "RESULT"):
				done <- result{line: strings.TrimSpace(s)}
				return
			case strings.HasPrefix(s, "got ") && !strings.Contains(s, "TERM") && !strings.Contains(s, "CONT"):
				realtime++ // read only here until done is sent
			}
		}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("TERM behind %d queued realtime signals: no exit within 5 s", n)
	}
	if res.err != nil {
		t.Fatal(res.err)
	}
	t.Logf("TERM to exit behind %d realtime signals sent to a stopped PID 1: %s; %d of them reached the app before it exited", n, time.Since(start).Round(time.Millisecond), realtime)
	if field(t, res.line, "code") != "0" || field(t, res.line, "leftover") != "false" {
		t.Fatalf("want the app's 0 after TERM: %s", res.line)
	}
	_ = cmd.Wait() // its status is the helper's, already checked via RESULT
}

// waitQueueLimit waits until pid's soft "Max pending signals" is want.
func waitQueueLimit(t *testing.T, pid, want int, d time.Duration) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Max pending signals") {
				last = l
				if f := strings.Fields(strings.TrimPrefix(l, "Max pending signals")); len(f) > 0 && f[0] == strconv.Itoa(want) {
					return
				}
			}
		}
	}
	t.Fatalf("pid %d's soft limit of pending signals never became %d: %q", pid, want, last)
}
