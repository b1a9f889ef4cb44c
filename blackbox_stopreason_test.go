package main_test

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

const stopHooks = `echo "$TEND_HOOK reason=$TEND_STOP_REASON detail=$TEND_STOP_DETAIL"`

// TestStopReason: pre-stop and post-stop say why the stop began.
func TestStopReason(t *testing.T) {
	t.Run("signal", func(t *testing.T) {
		p := startTend(t, opts{pid1: true}, "--pre-stop", stopHooks, "--post-stop", stopHooks,
			"--", fakeappBin, "signals", "SIGINT", "0")
		p.stdout.wait(t, "ready", 10*time.Second)
		p.signal(syscall.SIGINT)
		p.wait(15 * time.Second)
		for _, want := range []string{"pre-stop reason=signal detail=SIGINT", "post-stop reason=signal detail=SIGINT"} {
			if !p.stdout.has(want) {
				t.Fatalf("want %q:\n%s\n%s", want, p.stdout, p.stderr)
			}
		}
	})
	t.Run("liveness", func(t *testing.T) {
		_, out, errOut := runTend(t, opts{pid1: true}, "--pre-stop", stopHooks, "--post-stop", stopHooks,
			"--live-probe", "db=false", "--probe-period", "20ms", "--probe-failure-threshold", "1",
			"--", fakeappBin, "signals", "SIGTERM", "0")
		for _, want := range []string{"pre-stop reason=liveness detail=db", "post-stop reason=liveness detail=db"} {
			if !strings.Contains(out, want) {
				t.Fatalf("want %q:\n%s\n%s", want, out, errOut)
			}
		}
	})
	t.Run("app-exit", func(t *testing.T) {
		_, out, errOut := runTend(t, opts{pid1: true}, "--pre-stop", stopHooks, "--post-stop", stopHooks, "--", fakeappBin, "exit", "3")
		if !strings.Contains(out, "post-stop reason=app-exit detail=") || strings.Contains(out, "pre-stop") {
			t.Fatalf("want post-stop alone, reason app-exit:\n%s\n%s", out, errOut)
		}
	})
}

// TestStopExitCode: --stop-exit-code N replaces the code of a stop the
// runtime asked for, and no other; -e 143 hides an app that died of a
// TERM nobody asked tend for, --stop-exit-code does not.
func TestStopExitCode(t *testing.T) {
	// trapped: the app's own handler; segv: a crash in its handler.
	const trapped = `trap 'exit 3' TERM; echo ready; while :; do sleep 0.02; done`
	const segv = `trap 'trap - SEGV; kill -SEGV $$' TERM; echo ready; while :; do sleep 0.02; done`
	cases := []struct {
		name string
		args []string
		term bool // TERM to tend once the app is ready
		want int
	}{
		{"dies of the stop signal", []string{"--stop-exit-code", "0", "--", "sh", "-c", "echo ready; exec " + fakeappBin + " sleep 60s"}, true, 0},
		{"exits by its own handler", []string{"--stop-exit-code", "7", "--", "sh", "-c", trapped}, true, 7},
		{"crashes in its handler", []string{"--stop-exit-code", "0", "--", "sh", "-c", segv}, true, 139},
		{"killed at the grace period", []string{"--stop-exit-code", "0", "--grace-period", "300ms", "--min-shutdown-window", "300ms",
			"--", "sh", "-c", `trap '' TERM; echo ready; while :; do sleep 0.02; done`}, true, 137},
		{"TERM nobody asked for, -e 143", []string{"-e", "143", "--", fakeappBin, "killself", "TERM"}, false, 0},
		{"TERM nobody asked for, --stop-exit-code", []string{"--stop-exit-code", "0", "--", fakeappBin, "killself", "TERM"}, false, 143},
		{"a liveness stop keeps 75", []string{"--stop-exit-code", "0", "--live-probe", "false", "--probe-period", "20ms", "--probe-failure-threshold", "1",
			"--", fakeappBin, "sleep", "60s"}, false, 75},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := startTend(t, opts{pid1: true}, c.args...)
			if c.term {
				p.stdout.wait(t, "ready", 10*time.Second)
				p.signal(syscall.SIGTERM)
			}
			if code := p.wait(20 * time.Second); code != c.want {
				t.Fatalf("want %d, got %d\n%s\n%s", c.want, code, p.stdout, p.stderr)
			}
		})
	}
}
