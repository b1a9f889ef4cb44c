package lifecycle

import (
	"reflect"
	"testing"

	"github.com/tend-init/tend/hooks"
	"golang.org/x/sys/unix"
)

// TestStopSignalOnEveryStop: with --stop-signal X (StopSignalSet), every
// stop sends the app X, whatever began it; without it a received TERM or
// INT is what the app gets, as with tini. A signal received once the stop
// signal is out goes straight to the app. SIGCONT follows the stop signal,
// so a stopped app can act on it.
func TestStopSignalOnEveryStop(t *testing.T) {
	quit := func(c *Config) { c.StopSignal, c.StopSignalSet = unix.SIGQUIT, true }
	cmd := []hooks.Action{hooks.Command{Shell: "true"}}
	cases := []struct {
		name  string
		cfg   func(*Config)
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
		{"TERM during pre-stop is held and follows QUIT", func(c *Config) { quit(c); c.PreStop = cmd },
			[]event{sigEvent{unix.SIGTERM}, sigEvent{unix.SIGTERM}, hookDone{kind: hookPreStop}, appExit{131}},
			[]string{"stop probes", "start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "signal SIGQUIT", "signal SIGCONT", "signal SIGTERM"}},
		{"a rewrite of the stop signal still applies", func(c *Config) { quit(c); c.Rewrite[unix.SIGQUIT] = unix.SIGUSR1 },
			[]event{sigEvent{unix.SIGTERM}, appExit{0}},
			[]string{"stop probes", "signal SIGUSR1", "signal SIGCONT"}},
		{"without --stop-signal, INT is what the app gets", nil,
			[]event{sigEvent{unix.SIGINT}, appExit{130}},
			[]string{"stop probes", "signal SIGINT", "signal SIGCONT"}},
		{"a stop signal of CONT is not sent twice", func(c *Config) { c.StopSignal, c.StopSignalSet = unix.SIGCONT, true },
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
