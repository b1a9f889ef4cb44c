package lifecycle

import (
	"log/slog"
	"time"

	"github.com/tend-init/tend/notify"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/termination"
)

// sd_notify: package notify speaks the protocol, holds the sockets
// (notify.Link) and the app's notify.State; here the machine acts on what
// the app said (--notify) and the loop tells tend's own manager.

// notified is one message from the app's socket.
type notified struct{ msg notify.Message }

// onNotify folds a message in, logs what it said (notify.Message.Said),
// and stops the app if it asked to be treated as hung (WATCHDOG=trigger).
func (m *machine) onNotify(n notified) {
	st := &m.st.notes
	was := st.Ready
	st.Apply(n.msg, m.now())
	log := m.log.With(slog.Int("sender_pid", n.msg.PID))
	for _, s := range n.msg.Said(was, st.Ready) {
		if s.Info {
			log.Infof("notify: %s", s.Text)
		} else {
			log.Debugf("notify: %s", s.Text)
		}
	}
	m.checkWatchdog()
}

// watchdogApplies: --notify-watchdog, and an app running that no stop has
// begun for. In pause mode there is no app to stop.
func (m *machine) watchdogApplies() bool {
	if !m.cfg.Notify || m.cfg.NotifyWatchdog <= 0 || m.st.terminating {
		return false
	}
	return m.st.phase == phaseStarting || m.st.phase == phaseRunning
}

// notifyDeadline is when the app's watchdog runs out, for the loop's
// timer; zero when none applies.
func (m *machine) notifyDeadline() time.Time {
	if !m.watchdogApplies() {
		return time.Time{}
	}
	d, _ := m.st.notes.Deadline(m.cfg.NotifyWatchdog) // zero when not armed
	return d
}

// checkWatchdog stops the app when it missed its watchdog, as a failed
// liveness probe does: exit 75 and a termination message. It runs on the
// app's messages and on every tick.
func (m *machine) checkWatchdog() {
	if !m.watchdogApplies() || !m.st.notes.Hung(m.now(), m.cfg.NotifyWatchdog) {
		return
	}
	why := m.st.notes.HungWhy(m.cfg.NotifyWatchdog)
	m.failed(plan.ExitLivenessFailed, termination.ByWatchdog, "", why)
	m.beginStop(m.cfg.OwnStopSignal(), why, slog.String("probe", "notify-watchdog"))
}

// managerState is what tend tells its own manager (notify.Told), where
// --wait-for's STATUS= is what it waits on ("waiting for db=tcp://db:5432").
func (m *machine) managerState() (ready, stopping bool, status string) {
	ok, why := m.readiness()
	at := notify.Starting
	switch m.st.phase {
	case phaseWaiting:
		return false, false, m.awaited()
	case phasePreStart:
		at = notify.PreStart
	case phaseRunning, phasePause:
		at = notify.Running
	case phaseStopping:
		at = notify.Stopping
		if m.st.hooks[plan.HookPreStop] != nil {
			at = notify.PreStop
		}
	case phaseDraining, phaseDone:
		at = notify.Exited
	case phasePostStop:
		at = notify.PostStop
	}
	return notify.Told(at, ok, why)
}

// tellManager sends the manager what changed since the last event: READY=1
// the first time tend is ready, STOPPING=1 when a stop begins, and STATUS=
// whenever what tend waits on changes. It runs on the loop after every
// event.
func (l *Loop) tellManager() {
	if !l.note.Outward() {
		return
	}
	ready, stopping, status := l.m.managerState()
	l.note.Tell(ready, stopping, status, func() {
		if l.m.st.hasApp {
			l.log.Infof("notify: READY=1 to the manager, %s after the app started", l.m.now().Sub(l.m.st.appStarted).Round(time.Millisecond))
		} else {
			l.log.Infof("notify: READY=1 to the manager")
		}
	})
}

// watchdogPing sends WATCHDOG=1 while liveness holds: a loop that runs
// (this is the loop) and an app that is live by its checks.
func (l *Loop) watchdogPing() { l.note.Ping(l.m.liveness()) }
