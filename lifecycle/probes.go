package lifecycle

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/termination"
)

// probeState is what the machine knows of one check.
type probeState struct {
	t       probe.Threshold
	lastErr error // the last failure, for /readyz?verbose and the log
	passed  bool  // a startup check that has passed once
	// seenUp: the check has passed once. In pause mode a check that never
	// has watches an app that has not started yet, not a dead one
	// (notStarted).
	seenUp bool
}

// newProbeStates starts each check in the kubelet's initial state: readiness
// failing (not ready until it passes), liveness and startup passing until
// their failure threshold.
func newProbeStates(cs []plan.Probe) []probeState {
	out := make([]probeState, len(cs))
	for i, c := range cs {
		out[i].t = probe.NewThreshold(c.Params, c.Kind != plan.ProbeReady)
	}
	return out
}

// startProbes runs the startup checks, or, when there are none, the
// readiness and liveness checks: "Disable other probes until container has
// started" (the kubelet's prober worker).
func (m *machine) startProbes() {
	var startup []probeRun
	for i, c := range m.cfg.Checks {
		if c.Kind == plan.ProbeStartup {
			startup = append(startup, m.probeRun(i, true))
		}
	}
	if len(startup) == 0 {
		m.startMainProbes()
		return
	}
	m.w.startProbes(startup)
}

func (m *machine) startMainProbes() {
	m.st.started = true
	var runs []probeRun
	for i, c := range m.cfg.Checks {
		if c.Kind != plan.ProbeStartup {
			runs = append(runs, m.probeRun(i, false))
		}
	}
	if len(runs) > 0 {
		m.w.startProbes(runs)
	}
}

func (m *machine) probeRun(i int, once bool) probeRun {
	c := m.cfg.Checks[i]
	return probeRun{idx: i, check: c, once: once, env: hooks.Env(m.baseEnv, c.Kind.String()+"-probe", m.appPidIfRunning(), nil)}
}

func (m *machine) onProbe(r probeDone) {
	switch m.st.phase {
	case phaseRunning, phasePause:
	default:
		// An attempt that was under way when the stop began.
		m.log.Debugf("probe result in phase %s ignored", m.st.phase)
		return
	}
	if r.idx < 0 || r.idx >= len(m.st.checks) {
		m.internalError(fmt.Errorf("a result for check %d, which does not exist", r.idx))
		return
	}
	c, cs := m.cfg.Checks[r.idx], &m.st.checks[r.idx]
	if errors.Is(r.err, probe.ErrUnknown) {
		// tend's own resource shortage, not the app's failure: counted
		// and logged, never fed to the threshold.
		m.st.probeResults[health.ProbeKey{Probe: c.Name, Kind: c.Kind.String(), Result: "unknown"}]++
		m.log.With(probeField(c), probeKindField(c), logger.ErrField(r.err)).Warnf("%s check %s: %v", c.Kind, c.Name, r.err)
		return
	}
	m.st.probeResults[health.ProbeKey{Probe: c.Name, Kind: c.Kind.String(), Result: outcome(r.err == nil)}]++
	if r.err != nil {
		cs.lastErr = r.err
		m.log.With(probeField(c), probeKindField(c), logger.ErrField(r.err)).Debugf("%s attempt failed: %v", label(c), r.err)
	}
	if r.err == nil && !cs.seenUp {
		cs.seenUp = true
		if m.st.phase == phasePause {
			m.log.With(probeField(c), probeKindField(c)).Infof("%s passed for the first time: the app it watches is up", label(c))
		}
	}
	if m.notStarted(r.idx) {
		return
	}
	passing, changed := cs.t.Observe(r.err == nil)
	if c.Kind == plan.ProbeStartup && r.err == nil {
		m.onStartupPassed(r.idx)
		return
	}
	if !changed {
		return
	}
	m.log.With(probeField(c), probeKindField(c), slog.Bool("passing", passing)).Infof("%s is now %s", label(c), map[bool]string{true: "passing", false: "failing"}[passing])
	if passing || c.Kind == plan.ProbeReady {
		return
	}
	// A liveness or startup check failed.
	why := fmt.Sprintf("%s failed %d times in a row: %s: %v", label(c), c.Params.FailureThreshold, c.Handler, r.err)
	if m.st.phase == phasePause {
		// A sidecar: /livez says so, and the orchestrator restarts
		// whatever it attributes the probe to. tend keeps running.
		m.log.With(probeField(c), probeKindField(c), logger.ErrField(r.err)).Warnf("%s: /livez answers 503", why)
		return
	}
	m.st.exitOverride = plan.ExitLivenessFailed
	m.decided(why)
	grace := termination.OwnGrace(m.cfg)
	if c.GracePeriod > 0 {
		grace = c.GracePeriod // the probe's own terminationGracePeriodSeconds
	}
	m.st.cause.Because(termination.ProbeCause(c), c.Name)
	m.beginStopGrace(grace, m.ownStopSignal(), why, probeField(c), probeKindField(c), logger.ErrField(r.err))
}

// notStarted: in pause mode (the sidecar health responder), a check that
// has never passed watches an app that has not started, not a dead one, so
// its failures are not counted. Under native sidecars the app cannot start
// until the sidecar's own startupProbe has passed; counting them turned
// /livez 503 and deadlocked the pod. This is the kubelet's rule for its
// own probes: liveness is not judged until the container has started
// (pkg/kubelet/prober/worker.go, doProbe: "Disable other probes until
// container has started"), here with the first pass as the start.
func (m *machine) notStarted(i int) bool {
	return m.st.phase == phasePause && !m.st.checks[i].seenUp
}

// onStartupPassed marks a startup check passed; once every one has, the
// readiness and liveness checks begin.
func (m *machine) onStartupPassed(i int) {
	if m.st.checks[i].passed {
		return
	}
	m.st.checks[i].passed = true
	for j, c := range m.cfg.Checks {
		if c.Kind == plan.ProbeStartup && !m.st.checks[j].passed {
			return
		}
	}
	m.log.Infof("startup probe passed: starting the readiness and liveness probes")
	m.startMainProbes()
}

// label names a check in messages: "liveness probe" for the one unnamed
// liveness check, "readiness probe db" for a named one.
func label(c plan.Probe) string {
	word := "readiness probe"
	switch c.Kind {
	case plan.ProbeStartup:
		word = "startup probe"
	case plan.ProbeLive:
		word = "liveness probe"
	}
	if c.Name == c.Kind.String() {
		return word
	}
	return word + " " + c.Name
}

// failingCheck returns the first check of kind that is failing, if any;
// startup checks count for both /readyz and /livez until they pass.
func (m *machine) failingCheck(kind plan.ProbeKind) (plan.Probe, probeState, bool) {
	for i, c := range m.cfg.Checks {
		cs := m.st.checks[i]
		if c.Kind == kind && !cs.t.State() {
			return c, cs, true
		}
	}
	return plan.Probe{}, probeState{}, false
}

// checkStatuses is every check's state, for /readyz?verbose, /livez?verbose
// and tend_probe_up.
func (m *machine) checkStatuses() []health.CheckStatus {
	out := make([]health.CheckStatus, len(m.cfg.Checks))
	for i, c := range m.cfg.Checks {
		cs := m.st.checks[i]
		up := cs.t.State()
		if c.Kind == plan.ProbeStartup {
			up = cs.passed
		}
		st := health.CheckStatus{Name: c.Name, Kind: c.Kind.String(), Up: up}
		if !up {
			st.Detail = "not passed yet"
			if cs.lastErr != nil {
				st.Detail = oneLineErr(cs.lastErr)
			}
		}
		if m.notStarted(i) && cs.lastErr != nil {
			st.Detail = "not started: " + oneLineErr(cs.lastErr)
		}
		out[i] = st
	}
	return m.notifyStatuses(out)
}
