package lifecycle

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// defaults is newTestMachine's edit for every default, the grace period's
// derived as package config derives it (plan.Config.ResolveGrace).
func defaults(given time.Duration, postStop bool) func(*plan.Config) {
	return func(c *plan.Config) {
		d := plan.Default()
		c.GracePeriod, c.DrainTimeout = d.GracePeriod, d.DrainTimeout
		if given > 0 {
			c.GracePeriod = given
		}
		if postStop {
			c.PostStop = []hooks.Action{hooks.Command{Shell: "true"}}
		}
		c.ResolveGrace(given > 0)
	}
}

// TestDefaultGraceNeverCutsBeforeTheRuntime: with no --grace-period and no
// post-stop hook, a TERM from the runtime gets no SIGKILL from tend,
// however long the app takes (gunicorn finishing a 10 s request under
// podman stop's 10 s): the runtime's own SIGKILL is the bound, as under
// tini. A stop tend begins itself gets the kubelet's 30 s. An explicit
// --grace-period, or a post-stop hook, keeps the SIGKILL at the grace
// period.
func TestDefaultGraceNeverCutsBeforeTheRuntime(t *testing.T) {
	for _, c := range []struct {
		name     string
		edit     func(*plan.Config)
		stop     event
		killedAt time.Duration // 0: never within a minute
	}{
		{"defaults, TERM", defaults(0, false), sigEvent{unix.SIGTERM}, 0},
		{"defaults, INT", defaults(0, false), sigEvent{unix.SIGINT}, 0},
		{"defaults, stop tend began", defaults(0, false), cancelled{}, plan.KubeletGracePeriod},
		{"--grace-period 6s, TERM", defaults(6*time.Second, false), sigEvent{unix.SIGTERM}, 6 * time.Second},
		{"post-stop, TERM", defaults(0, true), sigEvent{unix.SIGTERM}, 6 * time.Second},
		{"post-stop, stop tend began", defaults(0, true), cancelled{}, 6 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(c.edit)
			m.begin(42)
			start := r.clock
			m.handle(c.stop)
			killed := time.Duration(0)
			for i := 0; i < 60 && killed == 0; i++ {
				r.clock = r.clock.Add(time.Second)
				m.handle(tick{})
				if slices.Contains(r.acts, "signal SIGKILL") {
					killed = r.clock.Sub(start)
				}
			}
			if killed != c.killedAt {
				t.Fatalf("SIGKILL at %s, want %s (0: never)\n%q\n%s", killed, c.killedAt, r.acts, r.log.String())
			}
			if !slices.Contains(r.acts, "signal SIGTERM") && !slices.Contains(r.acts, "signal SIGINT") {
				t.Fatalf("no stop signal: %q", r.acts)
			}
		})
	}
}

// TestDefaultGracePreStopStillCut: without a SIGKILL of its own, tend
// still cuts pre-stop at the grace period and sends the stop signal then,
// so the app gets it well inside docker stop's 10 s.
func TestDefaultGracePreStopStillCut(t *testing.T) {
	m, r := newTestMachine(func(c *plan.Config) {
		defaults(0, false)(c)
		c.PreStop = []hooks.Action{hooks.Command{Shell: "sleep 60"}}
	})
	m.begin(42)
	m.handle(sigEvent{unix.SIGTERM})
	r.clock = r.clock.Add(plan.DefaultGracePeriod)
	m.handle(tick{})
	m.handle(hookDone{kind: plan.HookPreStop, err: errBoom})
	if !slices.Contains(r.acts, "signal SIGTERM") || slices.Contains(r.acts, "signal SIGKILL") || !m.deadline().IsZero() {
		t.Fatalf("want the stop signal at 6 s and no SIGKILL armed: %q, deadline %v", r.acts, m.deadline())
	}
}

// TestStopDrainGetsTheRestOfTheGrace: during a stop, when the app (a
// wrapper's shell) exits, the process left in its group (the wrapper's
// child) gets what is left of the grace period, not the 1 s drain timeout
// meant for an app that exits on its own; the warning names the child.
func TestStopDrainGetsTheRestOfTheGrace(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*plan.Config)
		drain time.Duration // from the TERM to the drain's SIGKILL
	}{
		{"--grace-period 20s", defaults(20*time.Second, false), 20 * time.Second},
		// The runtime's SIGKILL ends the stop: grace + min window + drain.
		{"defaults", defaults(0, false), 9 * time.Second},
		{"post-stop", defaults(0, true), 6 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(func(cfg *plan.Config) {
				c.edit(cfg)
				cfg.Args = []string{"/bin/sh", "-c", "node server.js"}
			})
			m.begin(42)
			start := r.clock
			m.handle(sigEvent{unix.SIGTERM})
			r.clock = r.clock.Add(10 * time.Millisecond)
			r.children, r.groupKid = true, 77
			m.handle(appExit{143})
			if got := m.deadline().Sub(start); got != c.drain {
				t.Fatalf("drain SIGKILL %s after TERM, want %s\n%s", got, c.drain, r.log.String())
			}
			if !strings.Contains(r.log.String(), "the app (sh) exited 143; its child node (pid 77) still runs: exec it") {
				t.Fatalf("no wrapper warning:\n%s", r.log.String())
			}
		})
	}
	// An app that exits on its own: the drain timeout, and the child
	// named beside "is it daemonising?".
	m, r := newTestMachine(func(cfg *plan.Config) {
		defaults(0, false)(cfg)
		cfg.Args = []string{"/bin/sh", "-c", "node server.js"}
	})
	m.begin(42)
	start := r.clock
	r.children, r.groupKid = true, 77
	m.handle(appExit{0})
	if got := m.deadline().Sub(start); got != time.Second {
		t.Fatalf("drain %s, want the drain timeout", got)
	}
	if l := r.log.String(); !strings.Contains(l, "the app exited 0 and left 3 processes running: is it daemonising? Its child node (pid 77) is still in the process group of the app (sh): a wrapper that did not exec it?") {
		t.Fatalf("want the wrapper's child named:\n%s", l)
	}
}
