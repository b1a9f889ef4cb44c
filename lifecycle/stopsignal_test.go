package lifecycle

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// TestStopSignalOnEveryStop: with --stop-signal X (StopSignalSet), every
// stop sends the app X, whatever began it; without it a received TERM or
// INT is what the app gets, as with tini. A signal received once the stop
// signal is out goes straight to the app. SIGCONT follows the stop signal,
// so a stopped app can act on it.
func TestStopSignalOnEveryStop(t *testing.T) {
	quit := func(c *plan.Config) { c.StopSignal, c.StopSignalSet = unix.SIGQUIT, true }
	cmd := []hooks.Action{hooks.Command{Shell: "true"}}
	cases := []struct {
		name  string
		cfg   func(*plan.Config)
		steps []event
		acts  []string
	}{
		{"TERM begins a stop that sends QUIT", quit,
			[]event{sigEvent{unix.SIGTERM}, appExit{131}},
			[]string{"stop probes", "signal SIGQUIT", "signal SIGCONT"}},
		{"INT too", quit,
			[]event{sigEvent{unix.SIGINT}, appExit{131}},
			[]string{"stop probes", "signal SIGQUIT", "signal SIGCONT"}},
		{"a later TERM goes straight to the app", quit,
			[]event{sigEvent{unix.SIGTERM}, sigEvent{unix.SIGTERM}, appExit{143}},
			[]string{"stop probes", "signal SIGQUIT", "signal SIGCONT", "signal SIGTERM"}},
		{"TERM during pre-stop is held and follows QUIT", func(c *plan.Config) { quit(c); c.PreStop = cmd },
			[]event{sigEvent{unix.SIGTERM}, sigEvent{unix.SIGTERM}, hookDone{kind: plan.HookPreStop}, appExit{131}},
			[]string{"stop probes", "start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "signal SIGQUIT", "signal SIGCONT", "signal SIGTERM"}},
		{"a rewrite of the stop signal still applies", func(c *plan.Config) { quit(c); c.Rewrite[unix.SIGQUIT] = unix.SIGUSR1 },
			[]event{sigEvent{unix.SIGTERM}, appExit{0}},
			[]string{"stop probes", "signal SIGUSR1", "signal SIGCONT"}},
		{"without --stop-signal, INT is what the app gets", nil,
			[]event{sigEvent{unix.SIGINT}, appExit{130}},
			[]string{"stop probes", "signal SIGINT", "signal SIGCONT"}},
		{"a stop signal of CONT is not sent twice", func(c *plan.Config) { c.StopSignal, c.StopSignalSet = unix.SIGCONT, true },
			[]event{sigEvent{unix.SIGTERM}, appExit{0}},
			[]string{"stop probes", "signal SIGCONT"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(c.cfg)
			m.begin(42)
			for i, e := range c.steps {
				m.handle(e)
				if m.st.internalErrors != 0 {
					t.Fatalf("step %d (%T): internal error:\n%s", i, e, r.log.String())
				}
			}
			if !reflect.DeepEqual(r.acts, c.acts) {
				t.Errorf("actions:\n got %q\nwant %q", r.acts, c.acts)
			}
		})
	}
}

// TestDefaultStopEndsInsideDockerStop: with every default, the whole stop
// (pre-stop and the stop signal within the grace period, SIGKILL at its
// end or the shutdown window after a late stop signal, the drain, then
// post-stop) is over 9.5 s after the TERM, before docker stop's and podman
// stop's SIGKILL at 10 s; an explicit grace period moves the bound with it.
func TestDefaultStopEndsInsideDockerStop(t *testing.T) {
	cmd := []hooks.Action{hooks.Command{Shell: "true"}}
	for _, c := range []struct {
		name  string
		grace time.Duration // 0: the default
		end   time.Duration // post-stop's deadline, from the TERM
	}{
		{"defaults", 0, 9500 * time.Millisecond},
		{"--grace-period 20s", 20 * time.Second, 23500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(func(cfg *plan.Config) {
				d := plan.Default()
				cfg.GracePeriod, cfg.DrainTimeout = d.GracePeriod, d.DrainTimeout
				if c.grace != 0 {
					cfg.GracePeriod = c.grace
				}
				cfg.PreStop, cfg.PostStop = cmd, cmd
			})
			m.begin(42)
			start := r.clock
			// pre-stop runs until the grace period cuts it; the app
			// ignores the stop signal and dies of SIGKILL at the end of
			// the shutdown window; one process ignores the drain's TERM.
			r.children = true
			for _, s := range []step{ev(sigEvent{unix.SIGTERM}), after(m.cfg.GracePeriod, tick{}),
				ev(hookDone{kind: plan.HookPreStop, err: errBoom}), after(m.cfg.MinShutdownWindow, tick{}),
				ev(appExit{137}), after(m.cfg.DrainTimeout, tick{}), ev(reaped{none: true})} {
				r.clock = r.clock.Add(s.wait)
				m.handle(s.ev)
			}
			// The recorder writes a deadline as the time left.
			last := r.acts[len(r.acts)-1]
			left, ok := strings.CutPrefix(last, "start post-stop deadline=")
			if !ok {
				t.Fatalf("no post-stop last: %q", r.acts)
			}
			d, err := time.ParseDuration(strings.Fields(left)[0])
			if err != nil {
				t.Fatal(err)
			}
			if end := r.clock.Add(d).Sub(start); end != c.end {
				t.Fatalf("post-stop is cut %s after TERM, want %s (%q)", end, c.end, r.acts)
			}
			if c.grace == 0 && c.end >= 10*time.Second {
				t.Fatalf("the default stop ends %s after TERM, past docker stop's 10 s", c.end)
			}
		})
	}
}
