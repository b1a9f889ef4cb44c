package lifecycle

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/reaper"
)

// TestPreStart: pre-start runs before the app; the app starts only once it
// has succeeded. When it fails, the app never starts and tend exits 69;
// a stop signal during pre-start cuts it and no app starts; either way the
// tree drains and post-stop runs.
func TestPreStart(t *testing.T) {
	cmd := []hooks.Action{hooks.Command{Shell: "true"}}
	for _, c := range []struct {
		name     string
		startErr error
		steps    []event
		phases   string
		acts     []string
		code     int
	}{
		{name: "succeeds, then the app starts",
			steps:  []event{hookDone{kind: plan.HookPreStart}, appExit{0}, reaped{none: true}, hookDone{kind: plan.HookPostStop}},
			phases: "pre-start starting running draining post-stop done",
			acts: []string{"start pre-start deadline=none env=TEND_HOOK=pre-start", "start app",
				"start post-stop deadline=none env=TEND_HOOK=post-stop,TEND_APP_PID=42,TEND_EXIT_CODE=0"},
			code: 0},
		{name: "fails: no app, 69, post-stop runs",
			steps:  []event{hookDone{kind: plan.HookPreStart, err: errBoom}, reaped{none: true}, hookDone{kind: plan.HookPostStop}},
			phases: "pre-start draining post-stop done",
			acts: []string{"start pre-start deadline=none env=TEND_HOOK=pre-start",
				"start post-stop deadline=none env=TEND_HOOK=post-stop,TEND_EXIT_CODE=0"},
			code: plan.ExitStartHookFailed},
		{name: "TERM during pre-start: cut, no app",
			steps:  []event{sigEvent{unix.SIGTERM}, hookDone{kind: plan.HookPreStart, err: errBoom}, reaped{none: true}, hookDone{kind: plan.HookPostStop}},
			phases: "pre-start draining post-stop done",
			acts: []string{"start pre-start deadline=none env=TEND_HOOK=pre-start", "cancel pre-start: received SIGTERM",
				"start post-stop deadline=none env=TEND_HOOK=post-stop,TEND_EXIT_CODE=0"},
			code: 0},
		{name: "the app cannot start: its exec code",
			startErr: &reaper.ExecError{Prog: "app", Err: errBoom, Code: 127},
			steps:    []event{hookDone{kind: plan.HookPreStart}, reaped{none: true}, hookDone{kind: plan.HookPostStop}},
			phases:   "pre-start draining post-stop done",
			acts: []string{"start pre-start deadline=none env=TEND_HOOK=pre-start", "start app",
				"start post-stop deadline=none env=TEND_HOOK=post-stop,TEND_EXIT_CODE=0"},
			code: 127},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(func(cfg *plan.Config) { cfg.PreStart, cfg.PostStop, cfg.Args = cmd, cmd, []string{"app"} })
			r.startErr = c.startErr
			m.begin(0)
			for i, e := range c.steps {
				m.handle(e)
				if m.st.internalErrors != 0 {
					t.Fatalf("step %d (%T): internal error:\n%s", i, e, r.log.String())
				}
			}
			if got := strings.Join(r.phases(), " "); got != c.phases {
				t.Errorf("phases %q, want %q", got, c.phases)
			}
			if !reflect.DeepEqual(r.acts, c.acts) {
				t.Errorf("actions:\n got %q\nwant %q", r.acts, c.acts)
			}
			if code := m.exitCode(); code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
		})
	}
}
