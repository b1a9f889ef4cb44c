package lifecycle

import (
	"errors"
	"fmt"

	"github.com/tend-init/tend/probe"
)

// startProbes starts the configured app probes. The readiness probe starts
// failing (not ready until it passes), the liveness probe passing.
func (m *machine) startProbes() {
	var runs []probeRun
	add := func(kind ProbeKind, c probe.Checker, initial bool) *probe.Threshold {
		if c == nil {
			return nil
		}
		t := probe.NewThreshold(m.cfg.Probe, initial)
		env := childEnv(m.baseEnv, kind.String()+"-probe", m.appPidIfRunning(), nil)
		runs = append(runs, probeRun{kind: kind, checker: c, params: m.cfg.Probe, env: env})
		return &t
	}
	m.st.ready = add(probeReady, m.cfg.ReadyProbe, false)
	m.st.live = add(probeLive, m.cfg.LiveProbe, true)
	if len(runs) > 0 {
		m.w.startProbes(runs)
	}
}

func (m *machine) onProbe(r probeDone) {
	if m.st.phase != phaseStarting && m.st.phase != phaseRunning {
		// An attempt that was under way when the stop began.
		m.log.Debugf("%s probe result in phase %s ignored", r.kind, m.st.phase)
		return
	}
	t := m.st.ready
	if r.kind == probeLive {
		t = m.st.live
	}
	if t == nil {
		m.internalError(fmt.Errorf("a result for the %s probe, which was never started", r.kind))
		return
	}
	if errors.Is(r.err, probe.ErrUnknown) {
		// tend's own resource shortage, not the app's failure: counted
		// and logged, never fed to the threshold.
		m.st.probeResults[probe.ProbeKey{Probe: r.kind.String(), Result: "unknown"}]++
		m.log.Warnf("%s probe: %v", r.kind, r.err)
		return
	}
	if r.err != nil {
		m.log.Debugf("%s probe failed: %v", r.kind, r.err)
	}
	m.st.probeResults[probe.ProbeKey{Probe: r.kind.String(), Result: outcome(r.err == nil)}]++
	passing, changed := t.Observe(r.err == nil)
	if !changed {
		return
	}
	m.log.Infof("%s probe is now %s", r.kind, map[bool]string{true: "passing", false: "failing"}[passing])
	if r.kind == probeLive && !passing {
		m.st.exitOverride = ExitLivenessFailed
		why := fmt.Sprintf("liveness probe failed %d times in a row: %s: %v", m.cfg.Probe.FailureThreshold, m.cfg.LiveProbe, r.err)
		m.decided(why)
		m.beginStop(m.ownStopSignal(), why)
	}
}
