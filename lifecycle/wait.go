package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/termination"
)

// --wait-for: the machine's side of the wait. Its state is probe.Await;
// each dependency is attempted by a goroutine that only sends results
// (waitDone); the machine decides.

// waitRun is one dependency to attempt.
type waitRun struct {
	idx  int // in plan.Config.WaitFor
	wait plan.Wait
	env  []string
}

// beginWait starts every dependency's attempts at once.
func (m *machine) beginWait() {
	n := len(m.cfg.WaitFor)
	names, specs, runs := make([]string, n), make([]string, n), make([]waitRun, n)
	for i, w := range m.cfg.WaitFor {
		names[i], specs[i] = w.Name, w.Spec
		// As pre-start: set-up before the app, as tend's own user, with
		// no app pid to name.
		runs[i] = waitRun{idx: i, wait: w, env: hooks.Env(m.baseEnv, "wait", 0, nil)}
	}
	m.st.wait = probe.NewAwait(names, specs, m.now(), m.cfg.WaitTimeout)
	bound := "no bound"
	if m.cfg.WaitTimeout > 0 {
		bound = "up to " + m.cfg.WaitTimeout.String()
	}
	deps := "dependencies"
	if n == 1 {
		deps = "dependency"
	}
	m.transition(phaseWaiting, fmt.Sprintf("%d %s before the app", n, deps))
	m.log.With(slog.Duration("wait_timeout", m.cfg.WaitTimeout)).Infof("%s (%s)", m.awaited(), bound)
	m.w.startWait(runs)
}

// awaited says what the wait still waits for, "waiting for db=tcp://db:5432,
// cache=tcp://cache:6379", or "" when tend is not waiting: the log's and
// /readyz's words, and sd_notify's STATUS=.
func (m *machine) awaited() string {
	if m.st.phase != phaseWaiting {
		return ""
	}
	return m.st.wait.Awaited()
}

func (m *machine) onWait(r waitDone) {
	if m.st.phase != phaseWaiting {
		// An attempt that was under way when the wait ended.
		m.log.Debugf("wait result in phase %s ignored", m.st.phase)
		return
	}
	if r.idx < 0 || r.idx >= len(m.cfg.WaitFor) {
		m.internalError(fmt.Errorf("a result for dependency %d, which does not exist", r.idx))
		return
	}
	w := m.cfg.WaitFor[r.idx]
	if !m.st.wait.Pending(r.idx) {
		return // passed already; its goroutine ends at its first success
	}
	if r.err != nil {
		m.st.wait.Failed(r.idx, r.err)
		m.log.With(slog.String("dependency", w.Name), logger.ErrField(r.err)).Debugf("%s: %v", m.st.wait.Label(r.idx), r.err)
		return
	}
	took, all := m.st.wait.Up(r.idx, m.now())
	m.log.With(slog.String("dependency", w.Name), logger.DurationField(took)).Infof("%s is up after %s", m.st.wait.Label(r.idx), took)
	if !all {
		return
	}
	m.endWait()
	m.log.With(logger.DurationField(took)).Infof("every dependency is up after %s", took)
	if len(m.cfg.PreStart) > 0 {
		m.begin(0) // pre-start, which launches the app once it succeeded
		return
	}
	m.launch()
}

// endWait stops the attempts and the wait's deadlines.
func (m *machine) endWait() {
	m.st.wait.End()
	m.w.stopWait()
}

// abandonWait ends the wait with no app: a stop signal or a cancelled
// context. The tree drains (an exec attempt may be running) and post-stop
// runs, as after pre-start cut by TERM.
func (m *machine) abandonWait(why string) {
	m.log.Infof("%s while %s: the app will not start", why, m.awaited())
	m.endWait()
	m.beginDrain()
}

// onWaitTick logs progress and ends the wait at --wait-timeout.
func (m *machine) onWaitTick(now time.Time) {
	if m.st.phase != phaseWaiting {
		return
	}
	timedOut, progress, waited := m.st.wait.Tick(now)
	if timedOut {
		failing := m.st.wait.StillFailing()
		why := fmt.Sprintf("--wait-for: not up after %s: %s", m.cfg.WaitTimeout, failing)
		m.failed(plan.ExitStartHookFailed, termination.ByWaitTimeout, failing, why)
		m.log.With(slog.Duration("wait_timeout", m.cfg.WaitTimeout), slog.Int("code", plan.ExitStartHookFailed)).Warnf("%s; the app will not start", why)
		m.endWait()
		m.beginDrain()
	} else if progress {
		m.log.With(logger.DurationField(waited)).Warnf("%s, %s: %s", m.awaited(), waited, m.st.wait.StillFailing())
	}
}

// startWait is the world's: one goroutine per dependency, sharing one
// context that stopWait cancels.
func (l *Loop) startWait(runs []waitRun) {
	ctx, cancel := context.WithCancel(context.Background())
	l.stopWaiting = cancel
	for _, r := range runs {
		x := probe.Deps{Starter: l.childStarter(nil), Env: r.env, UserAgent: probe.UserAgent(l.cfg.Version)}
		go probe.UntilUp(ctx, r.wait.Handler, r.wait.Timeout, x, func(err error) bool {
			return l.deliver(ctx, waitDone{idx: r.idx, err: err})
		})
	}
}

func (l *Loop) stopWait() { l.stopWaiting() }
