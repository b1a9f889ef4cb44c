package lifecycle

import (
	"fmt"
	"log/slog"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/termination"
)

// startProbes runs the startup checks, or, when there are none, the
// readiness and liveness checks (probe.Set.First).
func (m *machine) startProbes() {
	m.runProbes(m.st.checks.First())
}

func (m *machine) runProbes(idx []int, once bool) {
	if len(idx) == 0 {
		return
	}
	runs := make([]probeRun, len(idx))
	for j, i := range idx {
		c := m.cfg.Checks[i]
		runs[j] = probeRun{idx: i, check: c, once: once, env: hooks.Env(m.baseEnv, c.Kind.String()+"-probe", m.appPidIfRunning(), nil)}
	}
	m.w.startProbes(runs)
}

func (m *machine) onProbe(r probeDone) {
	switch m.st.phase {
	case phaseRunning, phasePause:
	default:
		// An attempt that was under way when the stop began.
		m.log.Debugf("probe result in phase %s ignored", m.st.phase)
		return
	}
	if r.idx < 0 || r.idx >= len(m.cfg.Checks) {
		m.internalError(fmt.Errorf("a result for check %d, which does not exist", r.idx))
		return
	}
	c, pause := m.cfg.Checks[r.idx], m.st.phase == phasePause
	ch := m.st.checks.Observe(r.idx, r.err, pause)
	label := m.st.checks.Label(r.idx)
	switch {
	case ch.Unknown:
		m.log.With(probeField(c), probeKindField(c), logger.ErrField(r.err)).Warnf("%s check %s: %v", c.Kind, c.Name, r.err)
		return
	case r.err != nil:
		m.log.With(probeField(c), probeKindField(c), logger.ErrField(r.err)).Debugf("%s attempt failed: %v", label, r.err)
	case ch.FirstPass && pause:
		m.log.With(probeField(c), probeKindField(c)).Infof("%s passed for the first time: the app it watches is up", label)
	}
	if ch.StartupDone {
		m.log.Infof("startup probe passed: starting the readiness and liveness probes")
		m.runProbes(m.st.checks.Main(), false)
		return
	}
	if !ch.Flipped {
		return
	}
	m.log.With(probeField(c), probeKindField(c), slog.Bool("passing", ch.Passing)).Infof("%s is now %s", label, passing(ch.Passing))
	if ch.Passing || c.Kind == plan.ProbeReady {
		return
	}
	// A liveness or startup check failed.
	why := fmt.Sprintf("%s failed %d times in a row: %s: %v", label, c.Params.FailureThreshold, c.Handler, r.err)
	if pause {
		// A sidecar: /livez says so, and the orchestrator restarts
		// whatever it attributes the probe to. tend keeps running.
		m.log.With(probeField(c), probeKindField(c), logger.ErrField(r.err)).Warnf("%s: /livez answers 503", why)
		return
	}
	m.failed(plan.ExitLivenessFailed, termination.ProbeCause(c), c.Name, why)
	m.beginStopGrace(termination.ProbeGrace(m.cfg, c), m.cfg.OwnStopSignal(), why, probeField(c), probeKindField(c), logger.ErrField(r.err))
}

// passing is a check's state in the log's words.
func passing(ok bool) string {
	if ok {
		return "passing"
	}
	return "failing"
}
