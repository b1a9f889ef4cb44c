package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/notify"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/terminal"
	"github.com/tend-init/tend/termination"
	"github.com/tend-init/tend/watch"
	"golang.org/x/sys/unix"
)

// world is everything outside the state machine that it acts on: the app,
// the hook and probe goroutines, the rest of the process tree and the
// health endpoint. The Loop implements it with real processes; the table
// test implements it with a recorder, so the machine runs with none.
type world interface {
	// signalApp sends sig to the app, or to its process group; errNoApp
	// when the app has already been reaped.
	signalApp(sig unix.Signal, group bool) error
	// startHook runs cmds in the background and later delivers a
	// hookDone event; deadline, when not zero, cuts it short.
	startHook(kind plan.HookKind, cmds []hooks.Action, env []string, deadline time.Time) context.CancelCauseFunc
	// startProbes runs checks in the background; each attempt comes back
	// as a probeDone event until stopProbes (or, for a once check, its
	// first success).
	startProbes(runs []probeRun)
	stopProbes()
	// startWait attempts each dependency until it passes once; each
	// attempt comes back as a waitDone event until stopWait.
	startWait(runs []waitRun)
	stopWait()
	// signalRest signals every process left but tend, and says what it
	// signalled.
	signalRest(sig unix.Signal) string
	// countRest counts the processes left but tend; -1 when it cannot.
	countRest() int
	// groupChild finds a process left in the process group pgid (the
	// exited app's: a wrapper's child), the lowest pid, with its command
	// name; pid 0 for none.
	groupChild(pgid int) (pid int, comm string)
	// startApp starts the app once pre-start has succeeded; an error is
	// one its ExitCode describes (126, 127), as a start in New.
	startApp() (pid int, err error)
	// reap collects whatever has exited; none reports no child at all.
	reapNow() (none bool, err error)
	// publish hands the health endpoint a snapshot.
	publish(*health.Status)
	// suspend stops tend itself (plan.Behaviour.SuspendOnJobStop).
	suspend()
	// signalExitedGroup signals the process group that the reaped app
	// with pid led (plan.Behaviour.TermGroupOnExit).
	signalExitedGroup(pid int, sig unix.Signal)
}

// errNoApp is signalApp's answer once the app is gone.
var errNoApp = errors.New("no app running")

// probeRun is one check to start.
type probeRun struct {
	idx   int // in plan.Config.Checks
	check plan.Probe
	env   []string
	// once: the check ends at its first success (a startup probe).
	once bool
}

// Events are what the loop hands the machine, one at a time.
type (
	event    interface{}
	sigEvent struct{ sig unix.Signal }
	appExit  struct{ code int }
	hookDone struct {
		kind plan.HookKind
		err  error
		dur  time.Duration
	}
	probeDone struct {
		idx int // in plan.Config.Checks
		err error
	}
	waitDone struct {
		idx int // in plan.Config.WaitFor
		err error
	}
	reaped struct {
		none bool
		err  error
	}
	tick      struct{} // the earliest deadline may have passed
	cancelled struct{} // Run's context ended
)

// state is every value the loop decides on. Only the loop goroutine
// touches it.
type state struct {
	phase       Phase
	hasApp      bool
	appPid      int
	appStarted  time.Time
	appExited   bool
	appCode     int
	noChildren  bool // the last reap found no child left at all
	terminating bool // a stop has begun: not ready
	postStartOK bool
	reload      watch.Reloads // --reload-on (reload.go)

	exitOverride int // one of the Exit* codes, or 0
	// ignoreOnce: the HUP and CONT of tend's own detach from the terminal
	// of the session it led, ignored once each (plan.GroupSession).
	ignoreOnce terminal.HandOff
	reason     string // why tend, not the app, decided the outcome

	stop  termination.Stop  // the stop's and the drain's clock
	cause termination.Cause // why the stop began

	wait   probe.Await // --wait-for (wait.go)
	hooks  map[plan.HookKind]context.CancelCauseFunc
	checks probe.Set    // parallel to plan.Config.Checks (probes.go)
	notes  notify.State // what the app said on its socket (--notify; notifystate.go)

	// Counters for /metrics.
	forwarded      map[unix.Signal]uint64
	hookTally      hooks.Tally
	internalErrors int
}

// machine is the lifecycle's state machine: the state, and the rules that
// move it on events. It does no I/O of its own; it acts through w.
type machine struct {
	cfg     *plan.Config
	log     *logger.Logger
	w       world
	now     func() time.Time
	baseEnv []string // tend's environment, the base of every child's
	serve   bool     // a health endpoint wants snapshots
	st      state
}

func newMachine(cfg *plan.Config, log *logger.Logger, w world, now func() time.Time, baseEnv []string) *machine {
	return &machine{cfg: cfg, log: log, w: w, now: now, baseEnv: baseEnv, st: state{
		checks:    plan.ProbeSet(cfg.Checks),
		hooks:     map[plan.HookKind]context.CancelCauseFunc{},
		forwarded: map[unix.Signal]uint64{},
	}}
}

// begin enters the first phase: phaseWaiting with --wait-for, then
// phasePreStart with pre-start hooks; then phaseStarting with an app (pid >
// 0), which starts post-start and the probes, or phasePause without one.
// The wait and pre-start call it again once they are done.
func (m *machine) begin(pid int) {
	if m.st.phase == phaseNone && len(m.cfg.WaitFor) > 0 {
		m.beginWait()
		m.publish()
		return
	}
	if (m.st.phase == phaseNone || m.st.phase == phaseWaiting) && len(m.cfg.PreStart) > 0 {
		// The app starts once pre-start has succeeded (onPreStart).
		m.transition(phasePreStart, "pre-start runs before the app")
		m.startHook(plan.HookPreStart, time.Time{})
		m.publish()
		return
	}
	if pid <= 0 {
		m.transition(phasePause, "no program given: sidecar mode, reaping (and answering the health endpoint) until TERM or INT")
		if len(m.cfg.PostStart) > 0 {
			m.startHook(plan.HookPostStart, time.Time{})
		} else {
			m.startProbes()
		}
		m.publish()
		return
	}
	m.st.hasApp, m.st.appPid, m.st.appStarted = true, pid, m.now()
	m.transition(phaseStarting, fmt.Sprintf("app started as pid %d", pid))
	if len(m.cfg.PostStart) > 0 {
		m.startHook(plan.HookPostStart, time.Time{})
	} else {
		m.transition(phaseRunning, "no post-start hook")
		m.startProbes()
	}
	m.publish()
}

// handle applies one event, then moves the sequence on and publishes.
func (m *machine) handle(ev event) {
	switch e := ev.(type) {
	case sigEvent:
		m.onSignal(e.sig)
	case appExit:
		m.onAppExit(e.code)
	case hookDone:
		m.onHookDone(e)
	case probeDone:
		m.onProbe(e)
	case waitDone:
		m.onWait(e)
	case reaped:
		if e.err != nil {
			m.log.Errorf("%v", e.err)
		}
		m.st.noChildren = e.none
	case notified:
		m.onNotify(e)
	case tick:
		m.onTick()
	case reloadSeen:
		m.onReloadSeen(e.snap)
	case cancelled:
		if m.st.phase == phaseWaiting {
			m.abandonWait("context cancelled")
		} else if m.canBeginStop() {
			m.st.cause.Because(termination.ByCancel, "")
			m.beginStop(m.cfg.OwnStopSignal(), "context cancelled")
		}
	default:
		m.internalError(fmt.Errorf("unknown event %T", ev))
	}
	m.advance()
	m.publish()
}

func (m *machine) onAppExit(code int) {
	switch m.st.phase {
	case phaseStarting, phaseRunning, phaseStopping:
	default:
		m.internalError(fmt.Errorf("the app exited in phase %s", m.st.phase))
	}
	m.st.appExited, m.st.appCode = true, code
	ran := m.now().Sub(m.st.appStarted).Round(time.Millisecond)
	m.log.With(logger.AppPidField(m.st.appPid), slog.Int("code", code), logger.DurationField(ran)).Infof("app (pid %d) exited with code %d after %s", m.st.appPid, code, ran)
	m.termGroupOnExit(code)
	m.cancelHook(plan.HookPostStart, errors.New("the app exited"))
}

// decided records why tend, not the app, decided how things end: the
// first reason is the termination message.
func (m *machine) decided(why string) {
	if m.st.reason == "" {
		m.st.reason = why
	}
}

// failed records an outcome tend decided: the exit code, the cause hooks
// see (TEND_STOP_*) and the termination message's reason.
func (m *machine) failed(code int, by, detail, why string) {
	m.st.exitOverride = code
	m.st.cause.Because(by, detail)
	m.decided(why)
}

// exitCode is the app's code with the -e remaps applied, unless tend chose
// a code of its own or --stop-exit-code applies.
func (m *machine) exitCode() int {
	if m.st.exitOverride != 0 {
		return m.st.exitOverride
	}
	if m.cfg.StopExitCodeSet && m.st.hasApp && m.st.appExited && m.st.cause.StopExit(m.st.appCode, m.st.stop.Signal, m.st.stop.Sent) {
		m.logStopExit()
		return m.cfg.StopExitCode
	}
	return m.cfg.Remap(m.st.appCode)
}
