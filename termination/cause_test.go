package termination

import (
	"slices"
	"testing"

	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// TestCauseFirstWins: a later reason (a TERM during a liveness stop) does
// not replace the first.
func TestCauseFirstWins(t *testing.T) {
	var c Cause
	c.Because(ByLiveness, "api")
	c.Because(BySignal, "SIGTERM")
	if c != (Cause{ByLiveness, "api"}) {
		t.Errorf("cause %+v, want the liveness probe's", c)
	}
}

// TestProbeCause: a startup probe's failure says startup; any other
// (liveness) liveness.
func TestProbeCause(t *testing.T) {
	for kind, want := range map[plan.ProbeKind]string{plan.ProbeStartup: ByStartup, plan.ProbeLive: ByLiveness} {
		if got := ProbeCause(plan.Probe{Kind: kind}); got != want {
			t.Errorf("%s: %q, want %q", kind, got, want)
		}
	}
}

// TestCauseEnv: only pre-stop and post-stop are told, an app that exited
// with no reason given reads as app-exit, and a given reason wins.
func TestCauseEnv(t *testing.T) {
	cases := []struct {
		name      string
		cause     Cause
		kind      plan.HookKind
		appExited bool
		want      []string
	}{
		{"a signal, to pre-stop", Cause{BySignal, "SIGTERM"}, plan.HookPreStop, false, []string{"TEND_STOP_REASON=signal", "TEND_STOP_DETAIL=SIGTERM"}},
		{"the app exited", Cause{}, plan.HookPostStop, true, []string{"TEND_STOP_REASON=app-exit", "TEND_STOP_DETAIL="}},
		{"a reason, then the app exited", Cause{ByWaitTimeout, "db"}, plan.HookPostStop, true, []string{"TEND_STOP_REASON=wait-timeout", "TEND_STOP_DETAIL=db"}},
		{"no reason yet", Cause{}, plan.HookPreStop, false, []string{"TEND_STOP_REASON=", "TEND_STOP_DETAIL="}},
		{"post-start is not told", Cause{BySignal, "SIGTERM"}, plan.HookPostStart, true, nil},
		{"pre-start is not told", Cause{BySignal, "SIGTERM"}, plan.HookPreStart, false, nil},
	}
	for _, c := range cases {
		if got := c.cause.Env(c.kind, c.appExited); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCauseStopExit: --stop-exit-code applies to a stop asked for by a
// signal, once the stop signal went out, when the app died of it or exited
// by its own handler; not to a crash, a SIGKILL, or a stop tend began.
func TestCauseStopExit(t *testing.T) {
	cases := []struct {
		name    string
		cause   Cause
		appCode int
		sig     unix.Signal
		sent    bool
		want    bool
	}{
		{"died of TERM", Cause{BySignal, "SIGTERM"}, 143, unix.SIGTERM, true, true},
		{"its handler exited 1", Cause{BySignal, "SIGINT"}, 1, unix.SIGINT, true, true},
		{"exited 0", Cause{BySignal, "SIGTERM"}, 0, unix.SIGTERM, true, true},
		{"died of the rewritten stop signal", Cause{BySignal, "SIGTERM"}, 131, unix.SIGQUIT, true, true},
		{"crashed", Cause{BySignal, "SIGTERM"}, 139, unix.SIGTERM, true, false},
		{"died of another signal", Cause{BySignal, "SIGTERM"}, 129, unix.SIGTERM, true, false},
		{"SIGKILL at the grace period", Cause{BySignal, "SIGTERM"}, 137, unix.SIGTERM, true, false},
		{"the stop signal dropped by a rule", Cause{BySignal, "SIGTERM"}, 143, 0, true, false},
		{"the stop signal never sent", Cause{BySignal, "SIGTERM"}, 143, unix.SIGTERM, false, false},
		{"a liveness stop", Cause{ByLiveness, "api"}, 143, unix.SIGTERM, true, false},
		{"no stop", Cause{}, 0, 0, false, false},
	}
	for _, c := range cases {
		if got := c.cause.StopExit(c.appCode, c.sig, c.sent); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
