package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/termination"
)

// --wait-for: the dependencies awaited before pre-start and the app, as
// wait-for-it, dockerize -wait and linkerd-await do from a shell that a
// FROM scratch image has not got. Each is a probe spec, attempted by a
// goroutine that only sends results (waitDone); the machine decides.

// waitState is what the machine knows of the wait.
type waitState struct {
	pending    []bool  // parallel to plan.Config.WaitFor: not passed yet
	lastErr    []error // each one's last failure
	began      time.Time
	at         time.Time // --wait-timeout; zero: no bound, or not waiting
	progressAt time.Time // the next progress line; zero: not waiting
}

// waitRun is one dependency to attempt.
type waitRun struct {
	idx  int // in plan.Config.WaitFor
	wait plan.Wait
	env  []string
}

// waitProgress is how often the log says what is still awaited.
const waitProgress = 5 * time.Second

// beginWait starts every dependency's attempts at once.
func (m *machine) beginWait() {
	n := len(m.cfg.WaitFor)
	now := m.now()
	m.st.wait = waitState{pending: make([]bool, n), lastErr: make([]error, n), began: now, progressAt: now.Add(waitProgress)}
	if m.cfg.WaitTimeout > 0 {
		m.st.wait.at = now.Add(m.cfg.WaitTimeout)
	}
	bound := "no bound"
	if m.cfg.WaitTimeout > 0 {
		bound = "up to " + m.cfg.WaitTimeout.String()
	}
	m.transition(phaseWaiting, fmt.Sprintf("%d dependenc%s before the app", n, map[bool]string{true: "y", false: "ies"}[n == 1]))
	runs := make([]waitRun, n)
	for i, w := range m.cfg.WaitFor {
		m.st.wait.pending[i] = true
		// As pre-start: set-up before the app, as tend's own user, with
		// no app pid to name.
		runs[i] = waitRun{idx: i, wait: w, env: hooks.Env(m.baseEnv, "wait", 0, nil)}
	}
	m.log.With(slog.Duration("wait_timeout", m.cfg.WaitTimeout)).Infof("%s (%s)", m.awaited(), bound)
	m.w.startWait(runs)
}

// awaited says what the wait still waits for, "waiting for db=tcp://db:5432,
// cache=tcp://cache:6379", or "" when tend is not waiting: the log's and
// /readyz's words, and sd_notify's STATUS= once it is wired.
func (m *machine) awaited() string {
	if m.st.phase != phaseWaiting {
		return ""
	}
	var names []string
	for i, w := range m.cfg.WaitFor {
		if m.st.wait.pending[i] {
			names = append(names, waitLabel(w))
		}
	}
	return "waiting for " + strings.Join(names, ", ")
}

// waitLabel is NAME=SPEC, or the spec alone when it was not named.
func waitLabel(w plan.Wait) string {
	if w.Name == w.Spec {
		return w.Spec
	}
	return w.Name + "=" + w.Spec
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
	if !m.st.wait.pending[r.idx] {
		return // passed already; its goroutine ends at its first success
	}
	if r.err != nil {
		m.st.wait.lastErr[r.idx] = r.err
		m.log.With(slog.String("dependency", w.Name), logger.ErrField(r.err)).Debugf("%s: %v", waitLabel(w), r.err)
		return
	}
	m.st.wait.pending[r.idx] = false
	took := m.now().Sub(m.st.wait.began).Round(time.Millisecond)
	m.log.With(slog.String("dependency", w.Name), logger.DurationField(took)).Infof("%s is up after %s", waitLabel(w), took)
	for _, p := range m.st.wait.pending {
		if p {
			return
		}
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
	m.st.wait.at, m.st.wait.progressAt = time.Time{}, time.Time{}
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
	w := &m.st.wait
	if !w.at.IsZero() && !now.Before(w.at) {
		failing := m.stillFailing()
		why := fmt.Sprintf("--wait-for: not up after %s: %s", m.cfg.WaitTimeout, failing)
		m.st.exitOverride = plan.ExitStartHookFailed
		m.decided(why)
		m.st.cause.Because(termination.ByWaitTimeout, failing)
		m.log.With(slog.Duration("wait_timeout", m.cfg.WaitTimeout), slog.Int("code", plan.ExitStartHookFailed)).Warnf("%s; the app will not start", why)
		m.endWait()
		m.beginDrain()
		return
	}
	if !w.progressAt.IsZero() && !now.Before(w.progressAt) {
		w.progressAt = now.Add(waitProgress)
		waited := now.Sub(w.began).Round(time.Second)
		m.log.With(logger.DurationField(waited)).Warnf("%s, %s: %s", m.awaited(), waited, m.stillFailing())
	}
}

// stillFailing names each dependency not up yet, with its last error.
func (m *machine) stillFailing() string {
	var out []string
	for i, w := range m.cfg.WaitFor {
		if m.st.wait.pending[i] {
			out = append(out, fmt.Sprintf("%s (%s)", w.Name, oneLineErr(m.st.wait.lastErr[i])))
		}
	}
	return strings.Join(out, ", ")
}

// startWait is the world's: one goroutine per dependency, sharing one
// context that stopWait cancels.
func (l *Loop) startWait(runs []waitRun) {
	ctx, cancel := context.WithCancel(context.Background())
	l.stopWaiting = cancel
	for _, r := range runs {
		x := probe.Deps{Starter: l.childStarter(nil), Env: r.env, UserAgent: probe.UserAgent(l.cfg.Version)}
		go probe.UntilUp(ctx, r.wait.Handler, r.wait.Timeout, x, func(err error) bool {
			select {
			case l.events <- waitDone{idx: r.idx, err: err}:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}
}

func (l *Loop) stopWait() { l.stopWaiting() }
