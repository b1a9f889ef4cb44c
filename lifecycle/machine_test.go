package lifecycle

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"golang.org/x/sys/unix"
)

// step is one event for the machine, after moving the clock on by wait.
type step struct {
	wait time.Duration
	ev   event
}

// check is a TCP check of kind with the machine's shared settings.
func check(c *plan.Config, kind plan.ProbeKind, name string) plan.Probe {
	return plan.Probe{Kind: kind, Name: name, Handler: probe.TCP{Addr: "127.0.0.1:1"}, Params: c.Probe}
}

func ev(e event) step                     { return step{ev: e} }
func after(d time.Duration, e event) step { return step{wait: d, ev: e} }

var (
	errBoom    = errors.New("boom")
	errUnknown = fmt.Errorf("pipe2: %w", probe.ErrUnknown)
)

// TestMachine drives the state machine with events, with no processes, and
// checks the phases it went through, what it did, and the exit code.
func TestMachine(t *testing.T) {
	cmd := []hooks.Action{hooks.Command{Shell: "true"}}
	cases := []struct {
		name   string
		cfg    func(*plan.Config)
		pid    int  // 0: pause mode
		kids   bool // the reaper finds children left when the drain begins
		steps  []step
		phases string   // every phase entered, in order
		acts   []string // every action, in order
		code   int
		reason string // the termination message, when tend decided
	}{
		{
			name:   "TERM while running",
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "signal SIGTERM", "signal SIGCONT"},
			code:   143,
		},
		{
			name:   "TERM during post-start",
			cfg:    func(c *plan.Config) { c.PostStart = cmd },
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), ev(appExit{0}), ev(hookDone{kind: plan.HookPostStart, err: errBoom})},
			phases: "starting stopping draining post-stop done",
			acts:   []string{"start post-start deadline=none env=TEND_HOOK=post-start,TEND_APP_PID=42", "stop probes", "cancel post-start: a stop began", "signal SIGTERM", "signal SIGCONT", "cancel post-start: the app exited"},
			code:   0, // not 69: the stop, not the hook, ended the app
		},
		{
			name: "second TERM during pre-stop is held, not sent twice",
			cfg:  func(c *plan.Config) { c.PreStop = cmd },
			pid:  42,
			steps: []step{ev(sigEvent{unix.SIGTERM}), after(time.Second, sigEvent{unix.SIGTERM}),
				ev(sigEvent{unix.SIGUSR1}), ev(hookDone{kind: plan.HookPreStop}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "signal SIGUSR1", "signal SIGTERM", "signal SIGCONT"},
			code:   143,
		},
		{
			name: "INT during pre-stop is held and follows the stop signal",
			cfg:  func(c *plan.Config) { c.PreStop = cmd },
			pid:  42,
			steps: []step{ev(sigEvent{unix.SIGTERM}), ev(sigEvent{unix.SIGINT}), ev(sigEvent{unix.SIGINT}),
				ev(hookDone{kind: plan.HookPreStop}), ev(sigEvent{unix.SIGTERM}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "signal SIGTERM", "signal SIGCONT", "signal SIGINT", "signal SIGTERM"},
			code:   143,
		},
		{
			name: "pause mode runs every hook",
			cfg:  func(c *plan.Config) { c.PostStart, c.PreStop, c.PostStop = cmd, cmd, cmd },
			kids: true,
			steps: []step{ev(hookDone{kind: plan.HookPostStart}), ev(sigEvent{unix.SIGTERM}), ev(hookDone{kind: plan.HookPreStop}),
				ev(reaped{none: true}), ev(hookDone{kind: plan.HookPostStop})},
			phases: "pause stopping draining post-stop done",
			acts: []string{"start post-start deadline=none env=TEND_HOOK=post-start", "stop probes",
				"start pre-stop deadline=10s env=TEND_HOOK=pre-stop", "rest SIGTERM",
				"start post-stop deadline=15.5s env=TEND_HOOK=post-stop,TEND_EXIT_CODE=0"},
			code: 0,
		},
		{
			name:   "post-start failure in pause mode exits 69",
			cfg:    func(c *plan.Config) { c.PostStart = cmd },
			steps:  []step{ev(hookDone{kind: plan.HookPostStart, err: errBoom})},
			phases: "pause stopping draining post-stop done",
			acts:   []string{"start post-start deadline=none env=TEND_HOOK=post-start", "stop probes"},
			code:   plan.ExitStartHookFailed,
			reason: "post-start failed: boom",
		},
		{
			name:   "the app exits during pre-stop",
			cfg:    func(c *plan.Config) { c.PreStop = cmd },
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGINT}), ev(appExit{3}), ev(hookDone{kind: plan.HookPreStop})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42"},
			code:   3,
		},
		{
			name:   "post-start failure stops the app with 69",
			cfg:    func(c *plan.Config) { c.PostStart = cmd },
			pid:    42,
			steps:  []step{ev(hookDone{kind: plan.HookPostStart, err: errBoom}), ev(appExit{143})},
			phases: "starting stopping draining post-stop done",
			acts:   []string{"start post-start deadline=none env=TEND_HOOK=post-start,TEND_APP_PID=42", "stop probes", "signal SIGTERM", "signal SIGCONT"},
			code:   plan.ExitStartHookFailed,
			reason: "post-start failed: boom",
		},
		{
			name: "liveness failure stops the app with 75",
			cfg: func(c *plan.Config) {
				c.Checks = []plan.Probe{check(c, plan.ProbeLive, "live"), check(c, plan.ProbeReady, "ready")}
			},
			pid: 42,
			steps: []step{ev(probeDone{idx: 0, err: errBoom}), ev(probeDone{idx: 0, err: errBoom}),
				ev(probeDone{idx: 1}), ev(probeDone{idx: 0, err: errBoom}),
				ev(probeDone{idx: 0, err: errBoom}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts: []string{"probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42",
				"probe ready env=TEND_HOOK=ready-probe,TEND_APP_PID=42", "stop probes", "signal SIGTERM", "signal SIGCONT"},
			code:   plan.ExitLivenessFailed,
			reason: "liveness probe failed 3 times in a row: tcp://127.0.0.1:1: boom",
		},
		{
			name: "a liveness probe's own grace period replaces --grace-period for its stop",
			cfg: func(c *plan.Config) {
				c.Checks = []plan.Probe{check(c, plan.ProbeLive, "live")}
				c.Checks[0].GracePeriod = 3 * time.Second
			},
			pid: 42,
			steps: []step{ev(probeDone{err: errBoom}), ev(probeDone{err: errBoom}), ev(probeDone{err: errBoom}),
				after(2999*time.Millisecond, tick{}), after(time.Millisecond, tick{}), ev(appExit{137})},
			phases: "starting running stopping draining post-stop done",
			acts: []string{"probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42", "stop probes", "signal SIGTERM", "signal SIGCONT",
				"signal SIGKILL"},
			code:   plan.ExitLivenessFailed,
			reason: "liveness probe failed 3 times in a row: tcp://127.0.0.1:1: boom",
		},
		{
			name: "a startup probe's own grace period bounds pre-stop too",
			cfg: func(c *plan.Config) {
				c.PreStop = cmd
				c.Checks = []plan.Probe{check(c, plan.ProbeStartup, "startup")}
				c.Checks[0].GracePeriod = 4 * time.Second
			},
			pid:    42,
			steps:  []step{ev(probeDone{err: errBoom}), ev(probeDone{err: errBoom}), ev(probeDone{err: errBoom}), ev(hookDone{kind: plan.HookPreStop}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts: []string{"probe startup env=TEND_HOOK=startup-probe,TEND_APP_PID=42", "stop probes",
				"start pre-stop deadline=4s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "signal SIGTERM", "signal SIGCONT"},
			code:   plan.ExitLivenessFailed,
			reason: "startup probe failed 3 times in a row: tcp://127.0.0.1:1: boom",
		},
		{
			name: "a probe's own grace period is not used by a stop it did not begin",
			cfg: func(c *plan.Config) {
				c.PreStop = cmd
				c.Checks = []plan.Probe{check(c, plan.ProbeLive, "live")}
				c.Checks[0].GracePeriod = time.Second
			},
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), ev(hookDone{kind: plan.HookPreStop}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts: []string{"probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42", "stop probes",
				"start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "signal SIGTERM", "signal SIGCONT"},
			code: 143,
		},
		{
			name: "a probe tend could not run is unknown, never a failure",
			cfg:  func(c *plan.Config) { c.Checks = []plan.Probe{check(c, plan.ProbeLive, "live")} },
			pid:  42,
			steps: []step{ev(probeDone{err: errUnknown}), ev(probeDone{err: errUnknown}),
				ev(probeDone{err: errUnknown}), ev(probeDone{err: errUnknown}), ev(appExit{0})},
			phases: "starting running draining post-stop done",
			acts:   []string{"probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42"},
			code:   0,
		},
		{
			name:   "grace expiry kills the app",
			cfg:    func(c *plan.Config) { c.KillGroup = true },
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), after(9*time.Second, tick{}), after(time.Second, tick{}), ev(appExit{137})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "group SIGTERM", "group SIGCONT", "group SIGKILL", "signal SIGKILL"},
			code:   137,
			reason: "the app did not exit within the grace period of 10s: killed with SIGKILL",
		},
		{
			name: "pre-stop past the grace deadline is cut; the app still gets TERM, and 2 s before KILL",
			cfg:  func(c *plan.Config) { c.PreStop = cmd },
			pid:  42,
			steps: []step{ev(sigEvent{unix.SIGTERM}), after(10*time.Second, tick{}), ev(hookDone{kind: plan.HookPreStop, err: errBoom}),
				after(1999*time.Millisecond, tick{}), after(time.Millisecond, tick{}), ev(appExit{137})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "start pre-stop deadline=10s env=TEND_HOOK=pre-stop,TEND_APP_PID=42", "cancel pre-stop: grace period expired", "signal SIGTERM", "signal SIGCONT", "signal SIGKILL"},
			code:   137,
			reason: "the app did not exit within the grace period of 10s: killed with SIGKILL",
		},
		{
			name:   "no probe runs while post-start runs",
			cfg:    func(c *plan.Config) { c.PostStart = cmd; c.Checks = []plan.Probe{check(c, plan.ProbeLive, "live")} },
			pid:    42,
			steps:  []step{after(time.Second, hookDone{kind: plan.HookPostStart}), ev(sigEvent{unix.SIGTERM}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"start post-start deadline=none env=TEND_HOOK=post-start,TEND_APP_PID=42", "probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42", "stop probes", "signal SIGTERM", "signal SIGCONT"},
			code:   143,
		},
		{
			name:   "the stop signal begins a stop; WINCH does not",
			cfg:    func(c *plan.Config) { c.StopSignal = unix.SIGQUIT },
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGWINCH}), ev(sigEvent{unix.SIGQUIT}), ev(appExit{131})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"signal SIGWINCH", "stop probes", "signal SIGQUIT", "signal SIGCONT"},
			code:   131,
		},
		{
			name:   "QUIT is forwarded, not a stop, unless it is the stop signal",
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGQUIT}), ev(appExit{131})},
			phases: "starting running draining post-stop done",
			acts:   []string{"signal SIGQUIT"},
			code:   131,
		},
		{
			name: "a liveness failure sends the stop signal after -r",
			cfg: func(c *plan.Config) {
				c.StopSignal = unix.SIGQUIT
				c.Rewrite[unix.SIGQUIT] = unix.SIGUSR2
				c.Probe.FailureThreshold = 1
				c.Checks = []plan.Probe{check(c, plan.ProbeLive, "live")}
			},
			pid:    42,
			steps:  []step{ev(probeDone{err: errBoom}), ev(appExit{0})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42", "stop probes", "signal SIGUSR2", "signal SIGCONT"},
			code:   plan.ExitLivenessFailed,
			reason: "liveness probe failed 1 times in a row: tcp://127.0.0.1:1: boom",
		},
		{
			name: "the startup probe gates the others, then stops for good",
			cfg: func(c *plan.Config) {
				c.Checks = []plan.Probe{check(c, plan.ProbeStartup, "startup"), check(c, plan.ProbeLive, "live"), check(c, plan.ProbeReady, "ready")}
			},
			pid: 42,
			steps: []step{ev(probeDone{idx: 0, err: errBoom}), ev(probeDone{idx: 0}), ev(probeDone{idx: 2}),
				ev(sigEvent{unix.SIGTERM}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"probe startup env=TEND_HOOK=startup-probe,TEND_APP_PID=42", "probe live env=TEND_HOOK=live-probe,TEND_APP_PID=42", "probe ready env=TEND_HOOK=ready-probe,TEND_APP_PID=42", "stop probes", "signal SIGTERM", "signal SIGCONT"},
			code:   143,
		},
		{
			name: "a startup probe that never passes stops the app with 75",
			cfg: func(c *plan.Config) {
				c.Checks = []plan.Probe{check(c, plan.ProbeStartup, "startup"), check(c, plan.ProbeLive, "live")}
			},
			pid:    42,
			steps:  []step{ev(probeDone{idx: 0, err: errBoom}), ev(probeDone{idx: 0, err: errBoom}), ev(probeDone{idx: 0, err: errBoom}), ev(appExit{143})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"probe startup env=TEND_HOOK=startup-probe,TEND_APP_PID=42", "stop probes", "signal SIGTERM", "signal SIGCONT"},
			code:   plan.ExitLivenessFailed,
			reason: "startup probe failed 3 times in a row: tcp://127.0.0.1:1: boom",
		},
		{
			name:   "drain timeout: TERM, then KILL, then give up",
			pid:    42,
			kids:   true,
			steps:  []step{ev(appExit{0}), after(3*time.Second, tick{}), after(2*time.Second, tick{})},
			phases: "starting running draining post-stop done",
			acts:   []string{"rest SIGTERM", "rest SIGKILL"},
			code:   0,
		},
		{
			name:   "drain ends when the tree is empty",
			pid:    42,
			kids:   true,
			steps:  []step{ev(appExit{5}), after(time.Second, reaped{none: true})},
			phases: "starting running draining post-stop done",
			acts:   []string{"rest SIGTERM"},
			code:   5,
		},
		{
			name:   "post-stop sees the exit code; -e remaps it",
			kids:   true,
			cfg:    func(c *plan.Config) { c.PostStop = cmd; c.RemapExit[143] = true },
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), ev(appExit{143}), ev(reaped{none: true}), ev(hookDone{kind: plan.HookPostStop})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "signal SIGTERM", "signal SIGCONT", "rest SIGTERM", "start post-stop deadline=15.5s env=TEND_HOOK=post-stop,TEND_APP_PID=42,TEND_EXIT_CODE=143"},
			code:   0,
		},
		{
			name:   "a rewritten stop signal is what the app gets",
			cfg:    func(c *plan.Config) { c.Rewrite[unix.SIGTERM] = unix.SIGQUIT },
			pid:    42,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), ev(appExit{131})},
			phases: "starting running stopping draining post-stop done",
			acts:   []string{"stop probes", "signal SIGQUIT", "signal SIGCONT"},
			code:   131,
		},
		{
			name:   "pause mode",
			steps:  []step{ev(sigEvent{unix.SIGHUP}), ev(reaped{none: true})},
			phases: "pause",
			code:   0,
		},
		{
			name:   "TERM in pause mode drains and exits 0",
			kids:   true,
			steps:  []step{ev(sigEvent{unix.SIGTERM}), ev(reaped{none: true})},
			phases: "pause stopping draining post-stop done",
			acts:   []string{"stop probes", "rest SIGTERM"},
			code:   0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(c.cfg)
			r.children = c.kids
			m.begin(c.pid)
			for i, s := range c.steps {
				r.clock = r.clock.Add(s.wait)
				m.handle(s.ev)
				if m.st.internalErrors != 0 {
					t.Fatalf("step %d (%T): internal error:\n%s", i, s.ev, r.log.String())
				}
			}
			if got := strings.Join(r.phases(), " "); got != c.phases {
				t.Errorf("phases %q, want %q", got, c.phases)
			}
			if len(r.acts) != 0 || len(c.acts) != 0 {
				if !reflect.DeepEqual(r.acts, c.acts) {
					t.Errorf("actions:\n got %q\nwant %q", r.acts, c.acts)
				}
			}
			if code := m.exitCode(); strings.HasSuffix(c.phases, "done") && code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
			if m.st.reason != c.reason {
				t.Errorf("termination message %q, want %q", m.st.reason, c.reason)
			}
		})
	}
}

// TestInvalidEventsAreInternalErrors checks that what cannot happen is
// reported, not silently absorbed, and leaves the phase alone.
func TestInvalidEventsAreInternalErrors(t *testing.T) {
	m, r := newTestMachine(nil)
	m.begin(42)
	m.handle(hookDone{kind: plan.HookPreStop}) // never started
	if m.st.internalErrors != 1 || m.st.phase != phaseRunning {
		t.Fatalf("a report from a hook that never ran: %d internal errors, phase %s", m.st.internalErrors, m.st.phase)
	}
	if !m.transition(phaseStopping, "test") || m.transition(phaseRunning, "back") || m.st.phase != phaseStopping {
		t.Fatalf("stopping -> running must be refused; phase %s", m.st.phase)
	}
	if m.st.internalErrors != 2 || !strings.Contains(r.log.String(), "internal error: invalid transition stopping -> running") {
		t.Fatalf("the refused transition must be logged as an internal error:\n%s", r.log.String())
	}
	// A probe attempt that was in flight when the stop began is dropped.
	m.handle(probeDone{idx: 0, err: errBoom})
	if m.st.internalErrors != 2 {
		t.Fatalf("a late probe result is expected, not an internal error:\n%s", r.log.String())
	}
}

// TestTransitionTable checks the zero phase is not live and every phase
// but done can move on.
func TestTransitionTable(t *testing.T) {
	if phaseNone.String() != "none" || validTransition(phaseNone, phaseRunning) {
		t.Fatal("the zero phase must only lead to starting or pause")
	}
	for p := phaseStarting; p < phaseDone; p++ {
		if len(next[p]) == 0 {
			t.Errorf("phase %s has no way out", p)
		}
	}
	if len(next[phaseDone]) != 0 {
		t.Error("done must be final")
	}
}

// TestPauseModeProbes: the sidecar health responder. /readyz starts 503
// and follows the readiness checks; a failing liveness check turns /livez
// 503 and stops nothing.
func TestPauseModeProbes(t *testing.T) {
	m, r := newTestMachine(func(c *plan.Config) {
		c.Checks = []plan.Probe{check(c, plan.ProbeReady, "db"), check(c, plan.ProbeLive, "api")}
	})
	m.begin(0)
	type want struct{ ready, live bool }
	expect := func(step string, w want) {
		t.Helper()
		st := r.published
		if st == nil || st.Ready != w.ready || st.Live != w.live {
			t.Fatalf("%s: published %+v, want ready=%v live=%v", step, st, w.ready, w.live)
		}
	}
	expect("start", want{ready: false, live: true})
	// Neither check has passed yet: the app they watch has not started
	// (a native sidecar starts before its app), so failures are not
	// counted: /livez stays 200 and /readyz says it is waiting.
	for i := 0; i < 5; i++ {
		m.handle(probeDone{idx: 0, err: errBoom})
		m.handle(probeDone{idx: 1, err: errBoom})
	}
	expect("app not started", want{ready: false, live: true})
	if r.published.ReadyReason != "not ready: waiting for the app: readiness probe db not passed yet" {
		t.Fatalf("ready reason before the app was seen up: %q", r.published.ReadyReason)
	}
	if d := r.published.Checks[1].Detail; d != "not started: boom" {
		t.Fatalf("liveness detail before the app was seen up: %q", d)
	}
	m.handle(probeDone{idx: 1})
	m.handle(probeDone{idx: 0})
	expect("db up", want{ready: true, live: true})
	m.handle(probeDone{idx: 0, err: errBoom})
	m.handle(probeDone{idx: 0, err: errBoom})
	m.handle(probeDone{idx: 0, err: errBoom})
	expect("db down", want{ready: false, live: true})
	if !strings.Contains(r.published.ReadyReason, "readiness probe db failing: boom") {
		t.Fatalf("reason %q", r.published.ReadyReason)
	}
	for i := 0; i < 3; i++ {
		m.handle(probeDone{idx: 1, err: errBoom})
	}
	expect("api down", want{ready: false, live: false})
	if m.st.phase != phasePause || m.st.exitOverride != 0 {
		t.Fatalf("a failing liveness check in pause mode must not stop tend: phase %s", m.st.phase)
	}
	m.handle(probeDone{idx: 1})
	expect("api up", want{ready: false, live: true})
	m.handle(sigEvent{unix.SIGTERM})
	if m.st.phase != phaseDone || m.exitCode() != 0 {
		t.Fatalf("TERM still ends pause mode with 0: phase %s, code %d", m.st.phase, m.exitCode())
	}
	if got := r.published.Checks; len(got) != 2 || got[0].Name != "db" || got[0].Kind != "ready" || got[1].Up != true {
		t.Fatalf("checks %+v", got)
	}
}
