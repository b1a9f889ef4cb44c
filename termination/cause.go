package termination

import (
	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// Why a stop began, as pre-stop and post-stop see it in TEND_STOP_REASON
// (one word) and TEND_STOP_DETAIL (kubernetes/kubernetes#140 asks for
// hooks that know why), and the exit code of a stop that was asked for
// (--stop-exit-code).

// The words of TEND_STOP_REASON; README, "Hooks", lists them.
const (
	BySignal    = "signal"     // TERM, INT or the stop signal received; detail: its name
	ByLiveness  = "liveness"   // a liveness probe failed; detail: its name
	ByStartup   = "startup"    // a startup probe failed; detail: its name
	ByPostStart = "post-start" // post-start failed
	ByPreStart  = "pre-start"  // pre-start failed: the app never started
	ByExec      = "exec"       // the app could not be started; detail: the program
	ByAppExit   = "app-exit"   // the app exited on its own
	ByCancel    = "cancelled"  // Run's context ended (tend embedded, tests)
	// The app missed its --notify-watchdog (or sent WATCHDOG=trigger).
	ByWatchdog = "notify-watchdog"
	// --wait-for's dependencies were not up in --wait-timeout (post-stop
	// only: the app never ran); detail: those still failing.
	ByWaitTimeout = "wait-timeout"
)

// Cause is why the stop began: the first reason given; later ones (a TERM
// during a liveness stop) do not replace it. The zero Cause is none given.
type Cause struct{ Reason, Detail string }

// Because records reason and detail unless a reason was given before.
func (c *Cause) Because(reason, detail string) {
	if c.Reason == "" {
		*c = Cause{reason, detail}
	}
}

// ProbeCause is the reason a failed liveness or startup check gives.
func ProbeCause(p plan.Probe) string {
	if p.Kind == plan.ProbeStartup {
		return ByStartup
	}
	return ByLiveness
}

// Env is what a hook of this kind gets beside childEnv's variables: pre-stop
// and post-stop are told why (an app that exited on its own when no reason
// was given), the other hooks nothing.
func (c Cause) Env(kind plan.HookKind, appExited bool) []string {
	if kind != plan.HookPreStop && kind != plan.HookPostStop {
		return nil
	}
	if c.Reason == "" && appExited {
		c = Cause{Reason: ByAppExit}
	}
	return []string{"TEND_STOP_REASON=" + c.Reason, "TEND_STOP_DETAIL=" + c.Detail}
}

// StopExit says whether --stop-exit-code's N replaces the app's code: a
// stop the runtime asked for (a stop signal received), whose stop signal
// sig reached the app (sent), which then died of that signal or exited by
// its own handler (a code under 128). Any other death by signal (a crash,
// SIGKILL at the grace period) keeps its code, as do the stops tend began,
// which set their own. -e 143 cannot tell these apart (dumb-init #260).
func (c Cause) StopExit(appCode int, sig unix.Signal, sent bool) bool {
	if c.Reason != BySignal || !sent {
		return false
	}
	return appCode < 128 || (sig != 0 && appCode == 128+int(sig))
}
