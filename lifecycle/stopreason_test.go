package lifecycle

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
)

// TestStopReasonAndExitCode: what pre-stop and post-stop are told, and
// when --stop-exit-code replaces the app's code.
func TestStopReasonAndExitCode(t *testing.T) {
	hook := []hooks.Action{hooks.Command{Shell: "true"}}
	cases := []struct {
		name    string
		stopBy  event // nil: the app exits on its own
		appCode int
		env     string // the stop hooks' TEND_STOP_* variables
		code    int    // with --stop-exit-code 7
	}{
		{"TERM, the app dies of it", sigEvent{unix.SIGTERM}, 143, "pre-stop: TEND_STOP_REASON=signal,TEND_STOP_DETAIL=SIGTERM post-stop: TEND_STOP_REASON=signal,TEND_STOP_DETAIL=SIGTERM", 7},
		{"INT, its own handler exits 1", sigEvent{unix.SIGINT}, 1, "pre-stop: TEND_STOP_REASON=signal,TEND_STOP_DETAIL=SIGINT post-stop: TEND_STOP_REASON=signal,TEND_STOP_DETAIL=SIGINT", 7},
		{"TERM, the app crashes", sigEvent{unix.SIGTERM}, 139, "pre-stop: TEND_STOP_REASON=signal,TEND_STOP_DETAIL=SIGTERM post-stop: TEND_STOP_REASON=signal,TEND_STOP_DETAIL=SIGTERM", 139},
		{"the liveness probe", probeDone{idx: 0, err: errBoom}, 143, "pre-stop: TEND_STOP_REASON=liveness,TEND_STOP_DETAIL=api post-stop: TEND_STOP_REASON=liveness,TEND_STOP_DETAIL=api", plan.ExitLivenessFailed},
		{"the app dies of a TERM nobody asked for", nil, 143, "post-stop: TEND_STOP_REASON=app-exit,TEND_STOP_DETAIL=", 143},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(func(cfg *plan.Config) {
				cfg.PreStop, cfg.PostStop = hook, hook
				cfg.StopExitCode, cfg.StopExitCodeSet = 7, true
				cfg.Checks = []plan.Probe{check(cfg, plan.ProbeLive, "api")}
				cfg.Checks[0].Params.FailureThreshold = 1
			})
			m.begin(42)
			if c.stopBy != nil {
				m.handle(c.stopBy)
				m.handle(hookDone{kind: plan.HookPreStop})
			}
			m.handle(appExit{code: c.appCode})
			if got := strings.Join(r.stopEnv, " "); got != c.env {
				t.Fatalf("stop hooks told\n %q, want\n %q", got, c.env)
			}
			if got := m.exitCode(); got != c.code {
				t.Fatalf("exit %d, want %d", got, c.code)
			}
		})
	}
}
