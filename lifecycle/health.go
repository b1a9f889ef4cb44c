package lifecycle

import (
	"fmt"
	"maps"
	"time"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

// recordHook counts a finished hook for /metrics.
func (m *machine) recordHook(d hookDone) {
	m.st.hookRuns[health.HookKey{Hook: d.kind.String(), Result: outcome(d.err == nil)}]++
	h := m.st.hookDurations[d.kind.String()]
	h.Observe(d.dur.Seconds())
	m.st.hookDurations[d.kind.String()] = h
}

// outcome is the result label of the hook and probe counters.
func outcome(ok bool) string {
	if ok {
		return "success"
	}
	return "failure"
}

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
		HookRuns:         maps.Clone(st.hookRuns),
		HookDurations:    maps.Clone(st.hookDurations), // Histogram is a value: copied whole
		ProbeResults:     maps.Clone(st.probeResults),
		Published:        m.now(),
		Reloads:          st.reload.Count,
		ReloadOn:         len(m.cfg.ReloadOn) > 0,
	}
	if st.appExited {
		out.AppExitCode = st.appCode
	}
	for k, v := range st.forwarded {
		out.SignalsForwarded[signals.Name(k)] = v
	}
	out.Checks = m.checkStatuses()
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
	for _, k := range []plan.ProbeKind{plan.ProbeStartup, plan.ProbeLive} {
		if c, cs, bad := m.failingCheck(k); bad {
			return false, fmt.Sprintf("not live: %s failing: %s", label(c), oneLineErr(cs.lastErr))
		}
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
	case !m.st.started && m.hasChecks(plan.ProbeStartup):
		return false, "not ready: startup probe not passed yet"
	}
	if ok, why := m.notifyReadiness(); !ok {
		return false, why
	}
	if c, cs, bad := m.failingCheck(plan.ProbeReady); bad {
		if m.st.phase == phasePause && !cs.seenUp {
			// The sidecar health responder: the app it watches has not
			// been seen up yet.
			return false, fmt.Sprintf("not ready: waiting for the app: %s not passed yet", label(c))
		}
		if cs.lastErr == nil {
			return false, fmt.Sprintf("not ready: %s not passed yet", label(c))
		}
		return false, fmt.Sprintf("not ready: %s failing: %s", label(c), oneLineErr(cs.lastErr))
	}
	return true, "ok"
}

func (m *machine) hasChecks(k plan.ProbeKind) bool {
	for _, c := range m.cfg.Checks {
		if c.Kind == k {
			return true
		}
	}
	return false
}

// oneLineErr keeps a check's error on the one line /readyz answers with,
// every control byte escaped (excerpt.Escape).
func oneLineErr(err error) string {
	if err == nil {
		return "no result yet"
	}
	return excerpt.Escape(err.Error())
}

// heartbeat is how often the loop republishes while nothing happens, so
// that /livez can tell a stuck loop from a quiet one.
const heartbeat = time.Second
