package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
)

// recorder is the machine's world in table tests: no processes, a clock
// that moves only when told, and a log of every action in order.
type recorder struct {
	acts      []string
	clock     time.Time
	appGone   bool // signalApp answers errNoApp
	children  bool // reapNow finds children left
	published *health.Status
	startErr  error           // startApp fails with it
	groupKid  int             // groupChild's answer: a wrapper's child left in the app's group
	log       strings.Builder // tend's log lines: the phases come from here
	stopEnv   []string        // "KIND: TEND_STOP_..." for each hook started
}

func (r *recorder) act(format string, args ...any) {
	r.acts = append(r.acts, fmt.Sprintf(format, args...))
}

func (r *recorder) signalApp(sig unix.Signal, group bool) error {
	if r.appGone {
		return errNoApp
	}
	if group {
		r.act("group %s", signals.Name(sig))
	} else {
		r.act("signal %s", signals.Name(sig))
	}
	return nil
}

func (r *recorder) startHook(kind plan.HookKind, cmds []hooks.Action, env []string, deadline time.Time) context.CancelCauseFunc {
	d := "none"
	if !deadline.IsZero() {
		d = deadline.Sub(r.clock).String()
	}
	r.act("start %s deadline=%s env=%s", kind, d, strings.Join(tendVars(env, "TEND_STOP_"), ","))
	r.stopEnv = append(r.stopEnv, kind.String()+": "+strings.Join(stopVars(env), ","))
	return func(cause error) {
		if cause != nil {
			r.act("cancel %s: %v", kind, cause)
		}
	}
}

// tendVars keeps the TEND_* variables of env, which is otherwise the
// recorder's base environment, but those beginning with skip (the stop's
// reason, which stopreason_test.go checks apart: stopVars).
func tendVars(env []string, skip ...string) []string {
	var out []string
	for _, e := range env {
		if strings.HasPrefix(e, "TEND_") && (len(skip) == 0 || !strings.HasPrefix(e, skip[0])) {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) startProbes(runs []probeRun) {
	for _, p := range runs {
		r.act("probe %s env=%s", p.check.Name, strings.Join(tendVars(p.env), ","))
	}
}

func (r *recorder) stopProbes() { r.act("stop probes") }

func (r *recorder) startWait(runs []waitRun) {
	for _, w := range runs {
		r.act("wait %s env=%s", probe.WaitLabel(w.wait.Name, w.wait.Spec), strings.Join(tendVars(w.env), ","))
	}
}

func (r *recorder) stopWait() { r.act("stop wait") }

func (r *recorder) signalRest(sig unix.Signal) string {
	r.act("rest %s", signals.Name(sig))
	return "the rest"
}

func (r *recorder) reapNow() (bool, error) { return !r.children, nil }

func (r *recorder) startApp() (int, error) {
	r.act("start app")
	if r.startErr != nil {
		return 0, r.startErr
	}
	return 42, nil
}

func (r *recorder) groupChild(pgid int) (int, string) {
	if r.groupKid == 0 {
		return 0, ""
	}
	return r.groupKid, "node"
}

func (r *recorder) countRest() int {
	if r.children {
		return 3
	}
	return 0
}

func (r *recorder) publish(st *health.Status) { r.published = st }

func (r *recorder) suspend() { r.act("suspend") }

func (r *recorder) signalExitedGroup(pid int, sig unix.Signal) {
	r.act("exited group %d %s", pid, signals.Name(sig))
}

// newTestMachine builds a machine over a recorder, with cfg applied over
// the defaults.
func newTestMachine(edit func(*plan.Config)) (*machine, *recorder) {
	cfg := plan.Default()
	cfg.GracePeriod = 10 * time.Second
	cfg.DrainTimeout = 3 * time.Second
	if edit != nil {
		edit(&cfg)
	}
	r := &recorder{clock: time.Unix(1000, 0)}
	m := newMachine(&cfg, logger.New(&r.log, logger.LevelDebug, logger.Text), r, func() time.Time { return r.clock }, []string{"PATH=/bin"})
	m.serve = true
	return m, r
}

// phases lists the phases entered, in order, from the transition log lines.
func (r *recorder) phases() []string {
	var out []string
	for _, l := range strings.Split(r.log.String(), "\n") {
		if _, rest, ok := strings.Cut(l, "INFO: phase "); ok {
			if _, to, ok := strings.Cut(rest, " -> "); ok {
				to, _, _ = strings.Cut(to, ":")
				out = append(out, to)
			}
		}
	}
	return out
}

// stopVars keeps env's TEND_STOP_* variables.
func stopVars(env []string) []string {
	var out []string
	for _, e := range env {
		if strings.HasPrefix(e, "TEND_STOP_") {
			out = append(out, e)
		}
	}
	return out
}
