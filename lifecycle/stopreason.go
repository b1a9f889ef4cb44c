package lifecycle

import (
	"log/slog"

	"github.com/tend-init/tend/plan"
)

// Why a stop began, as pre-stop and post-stop see it in TEND_STOP_REASON
// (one word) and TEND_STOP_DETAIL (kubernetes/kubernetes#140 asks for
// hooks that know why), and the exit code of a stop that was asked for
// (--stop-exit-code).

// The words of TEND_STOP_REASON; README, "Hooks", lists them.
const (
	stopBySignal    = "signal"     // TERM, INT or the stop signal received; detail: its name
	stopByLiveness  = "liveness"   // a liveness probe failed; detail: its name
	stopByStartup   = "startup"    // a startup probe failed; detail: its name
	stopByPostStart = "post-start" // post-start failed
	stopByPreStart  = "pre-start"  // pre-start failed: the app never started
	stopByExec      = "exec"       // the app could not be started; detail: the program
	stopByAppExit   = "app-exit"   // the app exited on its own
	stopByCancel    = "cancelled"  // Run's context ended (tend embedded, tests)
	// The app missed its --notify-watchdog (or sent WATCHDOG=trigger).
	stopByWatchdog = "notify-watchdog"
	// --wait-for's dependencies were not up in --wait-timeout (post-stop
	// only: the app never ran); detail: those still failing.
	stopByWaitTimeout = "wait-timeout"
)

// stopCause is the first reason given; later ones (a TERM during a
// liveness stop) do not replace it.
type stopCause struct{ reason, detail string }

func (m *machine) because(reason, detail string) {
	if m.st.cause.reason == "" {
		m.st.cause = stopCause{reason, detail}
	}
}

// probeCause is the reason a failed liveness or startup check gives.
func probeCause(c plan.Probe) string {
	if c.Kind == plan.ProbeStartup {
		return stopByStartup
	}
	return stopByLiveness
}

// stopEnv is what pre-stop and post-stop get beside hooks.Env's variables.
func (m *machine) stopEnv(kind plan.HookKind) []string {
	if kind != plan.HookPreStop && kind != plan.HookPostStop {
		return nil
	}
	c := m.st.cause
	if c.reason == "" && m.st.appExited {
		c = stopCause{reason: stopByAppExit}
	}
	return []string{"TEND_STOP_REASON=" + c.reason, "TEND_STOP_DETAIL=" + c.detail}
}

// stopExitCode is --stop-exit-code's N when it applies: a stop the runtime
// asked for (a stop signal received), whose stop signal reached the app,
// which then died of that signal or exited by its own handler (a code
// under 128). Any other death by signal (a crash, SIGKILL at the grace
// period) keeps its code, as do the stops tend began, which set their
// own (exitOverride). -e 143 cannot tell these apart (dumb-init #260).
func (m *machine) stopExitCode() (int, bool) {
	st := &m.st
	if !m.cfg.StopExitCodeSet || st.cause.reason != stopBySignal || !st.hasApp || !st.appExited || !st.stopSent {
		return 0, false
	}
	if st.appCode >= 128 && (st.stopSignal == 0 || st.appCode != 128+int(st.stopSignal)) {
		return 0, false
	}
	m.log.With(slog.Int("code", st.appCode), slog.Int("exit_code", m.cfg.StopExitCode)).
		Infof("the stop asked for by %s ended with the app's code %d: exiting %d (--stop-exit-code)", st.cause.detail, st.appCode, m.cfg.StopExitCode)
	return m.cfg.StopExitCode, true
}
