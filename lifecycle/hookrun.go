package lifecycle

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/termination"
)

// startHook runs kind's commands; their result comes back as hookDone.
func (m *machine) startHook(kind plan.HookKind, deadline time.Time) {
	cmds := m.cfg.Hooks(kind)
	var code *int
	if kind == plan.HookPostStop {
		code = &m.st.appCode
	}
	env := append(hooks.Env(m.baseEnv, kind.String(), m.appPidIfRunning(), code), m.st.cause.Env(kind, m.st.appExited)...)
	m.log.With(hookField(kind), slog.Int("commands", len(cmds))).Infof("%s: running %d command(s)", kind, len(cmds))
	cancel := m.w.startHook(kind, cmds, env, deadline)
	m.st.hooks[kind] = cancel
}

// appPidIfRunning is the pid hooks see in TEND_APP_PID: 0 (unset) in
// pause mode.
func (m *machine) appPidIfRunning() int {
	if !m.st.hasApp {
		return 0
	}
	return m.st.appPid
}

func (m *machine) cancelHook(kind plan.HookKind, cause error) {
	if cancel := m.st.hooks[kind]; cancel != nil {
		cancel(cause)
	}
}

func (m *machine) onHookDone(d hookDone) {
	cancel := m.st.hooks[d.kind]
	if cancel == nil {
		m.internalError(fmt.Errorf("%s reported, but none was running", d.kind))
		return
	}
	delete(m.st.hooks, d.kind)
	cancel(nil)
	m.st.hookTally.Record(d.kind.String(), d.err, d.dur)
	if errors.Is(d.err, hooks.ErrTimeout) && d.kind != plan.HookReload { // a reload decides no outcome
		m.decided(fmt.Sprintf("%s timed out after %s", d.kind, m.cfg.HookTimeout))
	}
	if dur := d.dur.Round(time.Millisecond); d.err != nil {
		m.log.With(hookField(d.kind), logger.DurationField(dur), logger.ErrField(d.err)).Warnf("%s failed after %s: %v", d.kind, dur, d.err)
	} else {
		m.log.With(hookField(d.kind), logger.DurationField(dur)).Infof("%s succeeded in %s", d.kind, dur)
	}
	switch d.kind {
	case plan.HookPreStart:
		m.onPreStart(d.err)
	case plan.HookPostStart:
		m.onPostStart(d.err)
	case plan.HookPreStop:
		// Not when the grace deadline already cut it and sent the stop.
		if m.st.hasApp && !m.st.appExited && !m.st.stop.Sent {
			m.sendStop()
		}
	case plan.HookPostStop:
		m.transition(phaseDone, "post-stop finished")
	case plan.HookReload:
		m.onReloadDone()
	}
}

// onPreStart starts the app once pre-start has succeeded. When it failed,
// or a stop signal came meanwhile, or the app cannot start, the app never
// runs: the tree drains and post-stop runs, as after any app.
func (m *machine) onPreStart(err error) {
	switch {
	case m.st.terminating:
		m.beginDrain()
		return
	case err != nil:
		m.failed(plan.ExitStartHookFailed, termination.ByPreStart, "", fmt.Sprintf("pre-start failed: %v", err))
		m.beginDrain()
		return
	}
	m.launch()
}

// launch starts the app once the wait and pre-start are done, and begins
// its phase; in pause mode there is none to start. When it cannot start,
// the tree drains and post-stop runs, as after any app.
func (m *machine) launch() {
	if len(m.cfg.Args) == 0 {
		m.begin(0)
		return
	}
	pid, err := m.w.startApp()
	if err != nil {
		m.failed(plan.ExitCode(err), termination.ByExec, m.cfg.Args[0], err.Error())
		m.log.With(logger.ErrField(err)).Errorf("%v", err)
		m.beginDrain()
		return
	}
	m.begin(pid)
}

func (m *machine) onPostStart(err error) {
	if err == nil {
		m.st.postStartOK = true
		if m.st.phase == phaseStarting && !m.st.appExited {
			m.transition(phaseRunning, "post-start succeeded")
		}
		// As the kubelet, no probe runs until post-start is done; the
		// initial delay counts from here.
		if m.st.phase == phaseRunning || m.st.phase == phasePause {
			m.startProbes()
		}
		return
	}
	if (m.st.phase == phaseStarting || m.st.phase == phasePause) && !m.st.appExited {
		m.failed(plan.ExitStartHookFailed, termination.ByPostStart, "", fmt.Sprintf("post-start failed: %v", err))
		m.beginStop(m.cfg.OwnStopSignal(), "post-start failed", hookField(plan.HookPostStart))
	}
}
