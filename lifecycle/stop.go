package lifecycle

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/termination"
	"golang.org/x/sys/unix"
)

func (m *machine) canBeginStop() bool {
	switch m.st.phase {
	case phaseStarting, phaseRunning, phasePause:
		return true
	}
	return false
}

// beginStop starts the stop sequence: not ready, post-start and probes
// ended, then pre-stop, then sig to the app, with SIGKILL at the grace
// deadline. fields say, in a JSON log, what began the stop.
func (m *machine) beginStop(sig unix.Signal, why string, fields ...slog.Attr) {
	m.beginStopGrace(termination.OwnGrace(m.cfg), sig, why, fields...)
}

// beginStopGrace is beginStop with this stop's grace period: a failed
// probe's own terminationGracePeriodSeconds replaces --grace-period.
func (m *machine) beginStopGrace(grace time.Duration, sig unix.Signal, why string, fields ...slog.Attr) {
	pause := m.st.phase == phasePause
	if !m.transition(phaseStopping, why) {
		return
	}
	m.st.terminating = true
	m.st.stop.Begin(m.now(), grace, sig)
	fields = append([]slog.Attr{slog.String("reason", why), slog.Duration("grace_period", grace)}, fields...)
	if m.st.exitOverride != 0 {
		// tend's own decision: shown at the default verbosity, with the
		// code tend will exit with.
		fields = append(fields, slog.Int("code", m.st.exitOverride))
		m.log.With(fields...).Warnf("stop: %s; grace period %s", why, grace)
	} else if m.st.stop.RuntimeKills {
		m.log.With(fields...).Infof("stop: %s; grace period %s for pre-stop, then no SIGKILL from tend (no --grace-period, no post-stop hook): the runtime's own ends the stop, as under tini", why, grace)
	} else {
		m.log.With(fields...).Infof("stop: %s; grace period %s", why, grace)
	}
	m.publish()      // /readyz turns 503 before pre-stop starts, not after
	m.w.stopProbes() // probes end with the stop, as in Kubernetes
	m.cancelHook(plan.HookPostStart, errors.New("a stop began"))
	m.cancelHook(plan.HookReload, errors.New("a stop began")) // no reload runs during a stop
	if m.st.appExited {
		return
	}
	// Pre-stop and the stop signal share the grace deadline; in pause
	// mode there is no app to signal, but pre-stop still runs, bounded
	// the same way.
	m.st.stop.Arm(m.cfg)
	switch {
	case len(m.cfg.PreStop) > 0:
		m.startHook(plan.HookPreStop, m.st.stop.KillAt)
	case !pause:
		m.sendStop()
	}
}

// sendStop sends the stop signal, then any held ones (termination.Stop.Send
// moves SIGKILL's deadline).
func (m *machine) sendStop() {
	now := m.now()
	held := m.st.stop.Send(now, m.cfg)
	if sig := m.st.stop.Signal; sig == 0 {
		m.log.Infof("stop: the stop signal is dropped by a rewrite rule: nothing sent")
	} else {
		after := now.Sub(m.st.stop.Began).Round(time.Millisecond)
		m.log.With(logger.SignalField(sig), logger.DurationField(after)).Infof("stop: sending %s to the app, %s after the stop began", signals.Name(sig), after)
		m.forward(sig)
		// A stopped app (kill -STOP, a debugger, a frozen cgroup left
		// thawed) cannot act on the stop signal until continued: SIGCONT
		// right after it, as systemd sends, lets it stop at once instead
		// of waiting out the grace period for SIGKILL.
		if sig != unix.SIGCONT && m.cfg.ContAfterStop {
			m.forward(unix.SIGCONT)
		}
	}
	for _, sig := range held {
		m.forward(sig)
	}
}

// deadline is when the machine next wants a tick: the earliest of the
// grace, drain, wait and app-watchdog deadlines, or zero for none.
func (m *machine) deadline() time.Time {
	d := time.Time{}
	for _, t := range []time.Time{m.st.stop.KillAt, m.st.stop.DrainAt, m.st.wait.Deadline(), m.notifyDeadline()} {
		if !t.IsZero() && (d.IsZero() || t.Before(d)) {
			d = t
		}
	}
	return d
}

func (m *machine) onTick() {
	now := m.now()
	m.onWaitTick(now)
	if m.st.stop.GraceDue(now) {
		m.onGrace()
	}
	if m.st.stop.DrainDue(now) {
		m.onDrainTimeout()
	}
	m.checkWatchdog()
}

// onGrace fires at the stop deadline: whatever still runs of the app is
// killed, its group too with -g.
func (m *machine) onGrace() {
	m.cancelHook(plan.HookPreStop, errors.New("grace period expired"))
	if !m.st.hasApp || m.st.appExited {
		return
	}
	s := &m.st.stop
	if !s.Sent && s.RuntimeKills {
		m.log.With(hookField(plan.HookPreStop), logger.SignalField(s.Signal), slog.Duration("grace_period", s.Grace)).
			Warnf("stop: pre-stop ran until the grace period of %s expired: sending the stop signal now", s.Grace)
		m.sendStop()
		return
	}
	if !s.Sent {
		// Pre-stop used up the grace period. As the kubelet, the app
		// still gets the stop signal and a minimal shutdown window.
		m.log.With(hookField(plan.HookPreStop), logger.SignalField(s.Signal), slog.Duration("grace_period", s.Grace), slog.Duration("min_shutdown_window", m.cfg.MinShutdownWindow)).
			Warnf("stop: pre-stop ran until the grace period of %s expired: sending the stop signal now, SIGKILL in %s", s.Grace, m.cfg.MinShutdownWindow)
		m.sendStop()
		return
	}
	m.decided(fmt.Sprintf("the app did not exit within the grace period of %s: killed with SIGKILL", s.Grace))
	m.log.With(logger.SignalField(unix.SIGKILL), slog.Duration("grace_period", s.Grace), logger.AppPidField(m.st.appPid)).
		Warnf("stop: grace period of %s expired: sending SIGKILL to the app", s.Grace)
	if m.cfg.KillGroup {
		if err := m.w.signalApp(unix.SIGKILL, true); err != nil && !errors.Is(err, errNoApp) {
			m.log.With(logger.SignalField(unix.SIGKILL), logger.ErrField(err)).Errorf("SIGKILL to the app's group: %v", err)
		}
	}
	if err := m.w.signalApp(unix.SIGKILL, false); err != nil && !errors.Is(err, errNoApp) {
		m.log.With(logger.SignalField(unix.SIGKILL), logger.ErrField(err)).Errorf("SIGKILL to the app: %v", err)
	}
}

// advance moves the sequence on once its conditions hold: the app gone and
// no hook of its own still running means drain; a drained tree means
// post-stop.
func (m *machine) advance() {
	switch m.st.phase {
	case phaseStarting, phaseRunning, phaseStopping:
		appGone := !m.st.hasApp || m.st.appExited
		if appGone && m.st.hooks[plan.HookPostStart] == nil && m.st.hooks[plan.HookPreStop] == nil {
			m.beginDrain()
		}
	case phaseDraining:
		if m.st.noChildren {
			m.endDrain()
		}
	}
}

// beginDrain sends SIGTERM to every process left (the namespace as PID 1,
// tend's descendants otherwise) and gives them the drain timeout.
func (m *machine) beginDrain() {
	why := "the app exited"
	switch {
	case m.st.phase == phasePreStart, m.st.phase == phaseWaiting:
		why = "the app never started"
	case !m.st.hasApp:
		why = "pause mode stopped"
	}
	if !m.transition(phaseDraining, why) {
		return
	}
	m.st.stop.BeginDrain(m.now(), m.cfg)
	none, err := m.w.reapNow()
	if err != nil {
		m.log.Errorf("%v", err)
	}
	m.st.noChildren = none
	if none {
		m.endDrain()
		return
	}
	if m.st.hasApp {
		m.warnLeft()
	}
	who := m.w.signalRest(unix.SIGTERM)
	wait := m.st.stop.ArmDrain()
	m.log.With(logger.SignalField(unix.SIGTERM), slog.String("targets", who), slog.Duration("drain_timeout", wait)).
		Infof("drain: sent SIGTERM to %s; waiting up to %s", who, wait)
}

func (m *machine) onDrainTimeout() {
	if m.st.stop.DrainKilled {
		m.log.Warnf("drain: processes survived SIGKILL; giving up on them")
		m.endDrain()
		return
	}
	who := m.w.signalRest(unix.SIGKILL)
	// The wait beginDrain chose (--drain-timeout, or what was left of a
	// stop), not the time the timer took to fire, which is later by the
	// loop's latency.
	wait := m.st.stop.DrainWait
	m.log.With(logger.SignalField(unix.SIGKILL), slog.String("targets", who), slog.Duration("drain_timeout", wait)).
		Warnf("drain: %s expired; sent SIGKILL to %s", wait, who)
	m.st.stop.KillDrain(m.now())
}

func (m *machine) endDrain() {
	if took, ok := m.st.stop.EndDrain(m.now()); ok {
		m.log.With(logger.DurationField(took)).Infof("drain: done in %s", took)
	}
	if !m.transition(phasePostStop, "the tree is empty") {
		return
	}
	if len(m.cfg.PostStop) == 0 {
		m.transition(phaseDone, "no post-stop hook")
		return
	}
	m.startHook(plan.HookPostStop, m.st.stop.PostStopEnd(m.now(), m.cfg))
}

// warnLeft says, at the default verbosity, what the app left running when
// it exited (termination.Left).
func (m *machine) warnLeft() {
	l := termination.Left{Code: m.st.appCode, Stopping: m.st.terminating, App: termination.AppName(m.cfg.Args)}
	l.ChildPid, l.ChildComm = m.w.groupChild(m.st.appPid)
	if !l.Stopping {
		l.Count = m.w.countRest()
	}
	if msg, fields := l.Warning(); msg != "" {
		m.log.With(fields...).Warnf("%s", msg)
	}
}

// logStopExit says why tend exits with --stop-exit-code's N, not the app's
// code (termination.Cause.StopExit).
func (m *machine) logStopExit() {
	st := &m.st
	m.log.With(slog.Int("code", st.appCode), slog.Int("exit_code", m.cfg.StopExitCode)).
		Infof("the stop asked for by %s ended with the app's code %d: exiting %d (--stop-exit-code)", st.cause.Detail, st.appCode, m.cfg.StopExitCode)
}
