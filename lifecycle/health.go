package lifecycle

import (
	"time"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

// publish hands the health endpoint a fresh snapshot. It copies every map:
// the machine keeps mutating its own.
func (m *machine) publish() {
	if !m.serve {
		return
	}
	st := &m.st
	out := &health.Status{
		AppUp:            st.hasApp && !st.appExited,
		AppExitCode:      -1,
		Terminating:      st.terminating,
		SignalsForwarded: make(map[string]uint64, len(st.forwarded)),
		ProbeResults:     st.checks.Results(),
		Published:        m.now(),
		Reloads:          st.reload.Count,
		ReloadOn:         len(m.cfg.ReloadOn) > 0,
	}
	out.HookRuns, out.HookDurations = st.hookTally.Snapshot()
	if st.appExited {
		out.AppExitCode = st.appCode
	}
	for k, v := range st.forwarded {
		out.SignalsForwarded[signals.Name(k)] = v
	}
	out.Checks = st.checks.Statuses(st.phase == phasePause)
	if m.cfg.Notify { // the app's socket, beside the probes
		out.Checks = append(out.Checks, st.notes.Checks(m.now(), m.cfg.NotifyWatchdog)...)
	}
	out.Live, out.LiveReason = m.liveness()
	out.Ready, out.ReadyReason = m.readiness()
	m.w.publish(out)
}

// liveness: tend's loop runs (it is publishing) and the app runs or is
// being stopped; pause mode is always live.
func (m *machine) liveness() (bool, string) {
	if m.st.hasApp && m.st.appExited && !m.st.terminating {
		return false, "not live: the app exited"
	}
	if m.st.hasApp || m.st.terminating {
		// With an app, a failing liveness or startup check stops it;
		// /livez stays 200 while it is stopped.
		return true, "ok"
	}
	// Pause mode, the sidecar health responder: /livez reports the
	// checks, and tend keeps running.
	if why := m.st.checks.NotLive(); why != "" {
		return false, why
	}
	return true, "ok"
}

// readiness: started, post-start done, readiness probe passing, no stop.
func (m *machine) readiness() (bool, string) {
	switch {
	case m.st.terminating:
		return false, "not ready: stopping"
	case m.st.appExited:
		return false, "not ready: the app exited"
	case m.st.phase == phaseWaiting:
		return false, "not ready: " + m.awaited()
	case m.st.phase == phasePreStart:
		return false, "not ready: pre-start running"
	case len(m.cfg.PostStart) > 0 && !m.st.postStartOK:
		if m.st.hooks[plan.HookPostStart] != nil {
			return false, "not ready: post-start running"
		}
		return false, "not ready: post-start failed"
	case m.st.checks.StartupPending():
		return false, "not ready: startup probe not passed yet"
	}
	if ok, why := m.st.notes.Readiness(); m.cfg.Notify && !ok { // READY=1
		return false, why
	}
	if why := m.st.checks.NotReady(m.st.phase == phasePause); why != "" {
		return false, why
	}
	return true, "ok"
}

// heartbeat is how often the loop republishes while nothing happens, so
// that /livez can tell a stuck loop from a quiet one.
const heartbeat = time.Second
