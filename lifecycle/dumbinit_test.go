package lifecycle

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/signals"
	"golang.org/x/sys/unix"
)

// TestDumbInitMachine: the dumb-init mode's rules, on the state machine
// with no processes (dumbinit.go lists them; dumb-init.c is the source).
func TestDumbInitMachine(t *testing.T) {
	setsid := func(c *Config) {
		c.DumbInit = &DumbInit{Setsid: true}
		c.KillGroup = true
		c.Rewrite = signals.Rewrite{unix.SIGTSTP: unix.SIGSTOP, unix.SIGTTIN: unix.SIGSTOP, unix.SIGTTOU: unix.SIGSTOP}
	}
	cases := []struct {
		name    string
		cfg     func(*Config)
		handOff bool // tend detached from the terminal of the session it led
		steps   []step
		acts    []string
		code    int
		lines   []string // dumb-init's -v lines, in order, when set
	}{
		{
			name:  "TERM goes to the group alone: no CONT after it, no SIGKILL however long",
			cfg:   setsid,
			steps: []step{ev(sigEvent{unix.SIGTERM}), after(time.Hour, tick{}), ev(sigEvent{unix.SIGINT}), ev(appExit{143})},
			acts:  []string{"stop probes", "group SIGTERM", "group SIGINT", "exited group 42 SIGTERM"},
			code:  143,
		},
		{
			name: "TEND_GRACE_PERIOD given: SIGKILL at the grace period, as tend",
			cfg: func(c *Config) {
				setsid(c)
				c.DumbInit.GraceKill = true
			},
			steps: []step{ev(sigEvent{unix.SIGTERM}), after(10*time.Second, tick{}), ev(appExit{137})},
			acts:  []string{"stop probes", "group SIGTERM", "group SIGKILL", "signal SIGKILL", "exited group 42 SIGTERM"},
			code:  137,
		},
		{
			name:  "TSTP goes to the group as STOP, then tend suspends itself; CONT wakes both",
			cfg:   setsid,
			steps: []step{ev(sigEvent{unix.SIGTSTP}), ev(sigEvent{unix.SIGCONT}), ev(sigEvent{unix.SIGTTOU}), ev(appExit{0})},
			acts:  []string{"group SIGSTOP", "suspend", "group SIGCONT", "group SIGSTOP", "suspend", "exited group 42 SIGTERM"},
		},
		{
			name: "a terminal stop signal a rule drops still suspends tend",
			cfg: func(c *Config) {
				setsid(c)
				c.Rewrite[unix.SIGTTIN] = 0
			},
			steps: []step{ev(sigEvent{unix.SIGTTIN}), ev(appExit{0})},
			acts:  []string{"suspend", "exited group 42 SIGTERM"},
		},
		{
			name:    "after the terminal hand-off, the first HUP and the first CONT are not forwarded",
			cfg:     setsid,
			handOff: true,
			steps:   []step{ev(sigEvent{unix.SIGCONT}), ev(sigEvent{unix.SIGHUP}), ev(sigEvent{unix.SIGHUP}), ev(sigEvent{unix.SIGCONT}), ev(appExit{129})},
			acts:    []string{"group SIGHUP", "group SIGCONT", "exited group 42 SIGTERM"},
			code:    129,
		},
		{
			name: "single-child mode: the app alone, and no TERM to a group at its exit",
			cfg: func(c *Config) {
				c.DumbInit = &DumbInit{}
			},
			steps: []step{ev(sigEvent{unix.SIGUSR1}), ev(sigEvent{unix.SIGTSTP}), ev(appExit{3})},
			acts:  []string{"signal SIGUSR1", "signal SIGTSTP", "suspend"},
			code:  3,
		},
		{
			name: "-v: dumb-init's lines",
			cfg: func(c *Config) {
				setsid(c)
				c.DumbInit.Debug = true
				c.Rewrite[unix.SIGTERM] = unix.SIGQUIT
				c.Rewrite[unix.SIGWINCH] = 0
			},
			steps: []step{ev(sigEvent{unix.SIGWINCH}), ev(sigEvent{unix.SIGTERM}), ev(appExit{0})},
			acts:  []string{"stop probes", "group SIGQUIT", "exited group 42 SIGTERM"},
			lines: []string{"Received signal 28.", "Translating signal 28 to 0.", "Not forwarding signal 0 to children (ignored).",
				"Received signal 15.", "Translating signal 15 to 3.", "Forwarded signal 3 to children.",
				"Forwarded signal 15 to children.", "Child exited with status 0. Goodbye."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(c.cfg)
			m.log.dumb = m.cfg.DumbInit.Debug
			if c.handOff {
				m.st.handOff = []unix.Signal{unix.SIGHUP, unix.SIGCONT}
			}
			m.begin(42)
			for i, s := range c.steps {
				r.clock = r.clock.Add(s.wait)
				m.handle(s.ev)
				if m.st.internalErrors != 0 {
					t.Fatalf("step %d (%T): internal error:\n%s", i, s.ev, r.log.String())
				}
			}
			if m.st.phase != phaseDone {
				t.Errorf("phase %s, want done", m.st.phase)
			}
			if !reflect.DeepEqual(r.acts, c.acts) {
				t.Errorf("actions:\n got %q\nwant %q", r.acts, c.acts)
			}
			if code := m.exitCode(); code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
			var lines []string
			for _, l := range strings.Split(r.log.String(), "\n") {
				if s, ok := strings.CutPrefix(l, "[dumb-init] "); ok {
					lines = append(lines, s)
				}
			}
			if !reflect.DeepEqual(lines, c.lines) {
				t.Errorf("dumb-init lines:\n got %q\nwant %q", lines, c.lines)
			}
		})
	}
}
