package lifecycle

import (
	"maps"
	"time"

	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
)

// recordHook counts a finished hook for /metrics.
func (m *machine) recordHook(d hookDone) {
	m.st.hookRuns[probe.HookKey{Hook: d.kind.String(), Result: outcome(d.err == nil)}]++
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
	out := &probe.Status{
		AppUp:            st.hasApp && !st.appExited,
		AppExitCode:      -1,
		Terminating:      st.terminating,
		SignalsForwarded: make(map[string]uint64, len(st.forwarded)),
		HookRuns:         maps.Clone(st.hookRuns),
		HookDurations:    maps.Clone(st.hookDurations), // Histogram is a value: copied whole
		ProbeResults:     maps.Clone(st.probeResults),
		Published:        m.now(),
	}
	if st.appExited {
		out.AppExitCode = st.appCode
	}
	for k, v := range st.forwarded {
		out.SignalsForwarded[signals.Name(k)] = v
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
	return true, "ok"
}

// readiness: started, post-start done, readiness probe passing, no stop.
func (m *machine) readiness() (bool, string) {
	switch {
	case m.st.terminating:
		return false, "not ready: stopping"
	case m.st.appExited:
		return false, "not ready: the app exited"
	case len(m.cfg.PostStart) > 0 && !m.st.postStartOK:
		if m.st.hooks[hookPostStart] != nil {
			return false, "not ready: post-start running"
		}
		return false, "not ready: post-start failed"
	case m.st.ready != nil && !m.st.ready.State():
		return false, "not ready: readiness probe not passing"
	}
	return true, "ok"
}

// heartbeat is how often the loop republishes while nothing happens, so
// that /livez can tell a stuck loop from a quiet one.
const heartbeat = time.Second
