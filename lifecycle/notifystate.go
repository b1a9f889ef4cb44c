package lifecycle

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/notify"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/termination"
)

// sd_notify, the machine's side: what the app said on its socket
// (--notify) as a readiness and a liveness condition, and what tend tells
// its own manager (notify.go sends it).

// notified is one message from the app's socket.
type notified struct{ msg notify.Message }

// appNotes is what the app has said, as the machine keeps it.
type appNotes struct {
	notify.State
	wasReady bool // a READY=1 came once: a later not-ready is a reload
}

// onNotify folds a message in, logs what changed, and stops the app if it
// asked to be treated as hung (WATCHDOG=trigger).
func (m *machine) onNotify(n notified) {
	msg, st := n.msg, &m.st.notes
	was := st.Ready
	st.Apply(msg, m.now())
	log := m.log.With(slog.Int("sender_pid", msg.PID))
	switch {
	case st.Ready && !was:
		st.wasReady = true
		log.Infof("notify: the app said READY=1 (pid %d)", msg.PID)
	case !st.Ready && was:
		log.Infof("notify: the app said RELOADING=1 (pid %d): not ready until its next READY=1", msg.PID)
	}
	if msg.HasStatus {
		log.Debugf("notify: the app's status: %s", msg.Status)
	}
	if msg.Stopping {
		log.Infof("notify: the app said STOPPING=1 (pid %d); the stop is still tend's to make", msg.PID)
	}
	if msg.MainPID > 0 {
		log.Debugf("notify: the app said MAINPID=%d; tend watches the app it started", msg.MainPID)
	}
	if msg.Errno > 0 {
		log.Infof("notify: the app said ERRNO=%d", msg.Errno)
	}
	if len(msg.Ignored) > 0 {
		log.Debugf("notify: malformed lines ignored: %s", strings.Join(msg.Ignored, ", "))
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
	why := fmt.Sprintf("the app sent no WATCHDOG=1 for %s (--notify-watchdog)", m.cfg.NotifyWatchdog)
	if m.st.notes.Triggered {
		why = "the app sent WATCHDOG=trigger"
	}
	m.st.exitOverride = plan.ExitLivenessFailed
	m.decided(why)
	m.st.cause.Because(termination.ByWatchdog, "")
	m.beginStop(m.ownStopSignal(), why, slog.String("probe", "notify-watchdog"))
}

// notifyReadiness is the app's READY=1 as a readiness condition.
func (m *machine) notifyReadiness() (bool, string) {
	switch {
	case !m.cfg.Notify || m.st.notes.Ready:
		return true, "ok"
	case m.st.notes.wasReady:
		return false, "not ready: the app is reloading (RELOADING=1)"
	}
	return false, "not ready: the app has not sent READY=1"
}

// notifyStatuses adds the app's socket to the checks /readyz?verbose and
// /livez?verbose list: "notify" beside the readiness probes, with the
// app's STATUS=, and "notify-watchdog" beside the liveness probes.
func (m *machine) notifyStatuses(out []health.CheckStatus) []health.CheckStatus {
	if !m.cfg.Notify {
		return out
	}
	st := &m.st.notes
	ready, why := m.notifyReadiness()
	c := health.CheckStatus{Name: "notify", Kind: plan.ProbeReady.String(), Up: ready}
	if !ready {
		c.Detail = strings.TrimPrefix(why, "not ready: ")
	}
	if st.Status != "" {
		c.Detail = strings.TrimPrefix(c.Detail+"; STATUS="+st.Status, "; ")
	}
	out = append(out, c)
	if m.cfg.NotifyWatchdog > 0 {
		hung := m.st.notes.Hung(m.now(), m.cfg.NotifyWatchdog)
		w := health.CheckStatus{Name: "notify-watchdog", Kind: plan.ProbeLive.String(), Up: !hung}
		if hung {
			w.Detail = fmt.Sprintf("no WATCHDOG=1 for %s", m.cfg.NotifyWatchdog)
		}
		out = append(out, w)
	}
	return out
}

// managerState is what tend tells its own manager: ready once the app is
// started, post-start passed and readiness holds (pause mode: at once
// when nothing is checked); stopping once a stop began or the app
// exited; and a STATUS= line for what tend waits on, with the words a
// relay would take for a state change taken out (statusSafe).
func (m *machine) managerState() (ready, stopping bool, status string) {
	ready, stopping, status = m.managerStatus()
	return ready, stopping, statusSafe.Replace(status)
}

// statusSafe rewrites what a relay between tend and its manager would
// read as READY=1 or WATCHDOG=1 anywhere in a datagram. conmon before
// 2.1.10 (Debian 12's 2.1.6; src/conn_sock.c, "Do what OCI runtime does -
// only pass READY=1") passes a datagram on as READY=1 when strstr finds
// "READY=1" in it, and as WATCHDOG=1 likewise, so under podman 4.3
// --sdnotify=container the STATUS= line "waiting: the app has not sent
// READY=1" told systemd the container was ready before the app was (seen
// in examples.TestPodmanSdnotify). Only the STATUS= text is rewritten;
// tend's own READY=1 and WATCHDOG=1 are sent as they are.
var statusSafe = strings.NewReplacer("READY=1", "READY", "WATCHDOG=1", "WATCHDOG")

// managerStatus is managerState before statusSafe.
func (m *machine) managerStatus() (ready, stopping bool, status string) {
	ok, why := m.readiness()
	switch m.st.phase {
	case phaseStopping, phaseDraining, phasePostStop, phaseDone:
		return false, true, "stopping: " + m.stopStatus()
	case phaseWaiting:
		return false, false, m.awaited() // "waiting for db=tcp://db:5432"
	case phasePreStart:
		return false, false, "waiting: pre-start running"
	case phaseRunning, phasePause:
		if ok {
			return true, false, "ready"
		}
	}
	return false, false, "waiting: " + strings.TrimPrefix(why, "not ready: ")
}

// stopStatus says where a stop stands, for STATUS=.
func (m *machine) stopStatus() string {
	switch {
	case m.st.phase == phasePostStop:
		return "post-stop running"
	case m.st.phase == phaseDraining || m.st.phase == phaseDone:
		return "the app exited"
	case m.st.hooks[plan.HookPreStop] != nil:
		return "pre-stop running"
	}
	return "waiting for the app to exit"
}
