package lifecycle

import (
	"errors"
	"log/slog"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/termination"
	"golang.org/x/sys/unix"
)

// A received signal: whether it begins a stop, is held, dropped or
// forwarded, and to whom.

// onSignal handles one received signal. TERM and INT begin the stop
// sequence; anything else is passed to the app at once.
func (m *machine) onSignal(recv unix.Signal) {
	m.log.Tracef("Received signal %d.", recv)
	if m.st.ignoreOnce.Ignore(recv) {
		// The first HUP or CONT after tend detached from the terminal of
		// the session it led (terminal.HandOff).
		m.log.Tracef("Ignoring tty hand-off signal %d.", recv)
		return
	}
	if m.cfg.SuspendOnJobStop && signals.IsJobStop(recv) {
		// Forwarded or dropped, a terminal stop signal stops tend too
		// (signals.StopSelf).
		defer func() {
			m.log.Tracef("Suspending self due to TTY signal.")
			m.w.suspend()
		}()
	}
	sig, ok := m.cfg.Rewrite.Apply(recv)
	if _, rule := m.cfg.Rewrite[recv]; rule {
		m.log.Tracef("Translating signal %d to %d.", recv, sig)
	}
	if !ok {
		m.log.Tracef("Not forwarding signal %d to children (ignored).", sig)
		m.log.With(logger.SignalField(recv)).Debugf("dropped %s (rewrite rule)", signals.Name(recv))
		return
	}
	if m.cfg.IsStopSignal(recv) {
		switch {
		case m.st.phase == phaseWaiting:
			// Nothing started yet: the wait ends, no app starts, and the
			// drain and post-stop follow.
			m.st.terminating = true
			m.st.cause.Because(termination.BySignal, signals.Name(recv))
			m.abandonWait("received " + signals.Name(recv))
			return
		case m.st.phase == phasePreStart:
			// Nothing to stop yet: pre-start is cut, the app never
			// starts, and the drain and post-stop follow.
			m.st.terminating = true
			m.st.cause.Because(termination.BySignal, signals.Name(recv))
			m.log.With(logger.SignalField(recv)).Infof("received %s during pre-start: the app will not start", signals.Name(recv))
			m.cancelHook(plan.HookPreStart, errors.New("received "+signals.Name(recv)))
			return
		case m.canBeginStop():
			if m.cfg.StopSignalSet {
				sig = m.cfg.OwnStopSignal()
			}
			m.st.cause.Because(termination.BySignal, signals.Name(recv))
			m.beginReceivedStop(sig, "received "+signals.Name(recv), logger.SignalField(recv))
			return
		case m.st.phase == phaseStopping && !m.st.stop.Sent && m.st.hasApp:
			// Held, not dropped: the app gets the stop signal once when
			// pre-stop ends, then each other signal held meanwhile.
			m.st.stop.Hold(sig)
			m.log.With(logger.SignalField(recv)).Infof("received %s while pre-stop runs: held until it ends", signals.Name(recv))
			return
		}
	}
	m.forward(sig)
}

// beginReceivedStop begins a stop that a received TERM, INT or stop signal
// asked for: the runtime's (docker stop, podman stop, the kubelet), whose
// own SIGKILL ends it when plan.Config.RuntimeKills says so.
func (m *machine) beginReceivedStop(sig unix.Signal, why string, fields ...slog.Attr) {
	m.st.stop.RuntimeKills = m.cfg.RuntimeKills
	m.beginStopGrace(m.cfg.GracePeriod, sig, why, fields...)
}

// forward sends sig to the app, or to its process group with -g.
func (m *machine) forward(sig unix.Signal) {
	if !m.st.hasApp || m.st.appExited {
		m.log.With(logger.SignalField(sig)).Debugf("not forwarding %s: no app running", signals.Name(sig))
		return
	}
	err := m.w.signalApp(sig, m.cfg.KillGroup)
	switch {
	case errors.Is(err, errNoApp):
		// The reaper collected the app in this very iteration, before
		// its exit was read.
		m.log.With(logger.SignalField(sig)).Debugf("not forwarding %s: no app running", signals.Name(sig))
		return
	case err != nil:
		m.log.With(logger.SignalField(sig), logger.AppPidField(m.st.appPid), logger.ErrField(err)).Warnf("forwarding %s to pid %d: %v", signals.Name(sig), m.st.appPid, err)
		return
	}
	m.st.forwarded[sig]++
	m.log.Tracef("Forwarded signal %d to children.", sig)
	m.log.With(logger.SignalField(sig), logger.AppPidField(m.st.appPid)).Debugf("forwarded %s to pid %d", signals.Name(sig), m.st.appPid)
}
