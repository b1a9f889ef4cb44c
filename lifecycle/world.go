package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/user"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/reaper"
	"github.com/tend-init/tend/signals"
)

// The world, as the machine sees it, with real processes.

func (l *Loop) signalApp(sig unix.Signal, group bool) error {
	if l.app == nil || l.app.Reaped() {
		return errNoApp
	}
	if group {
		return l.app.SignalGroup(sig)
	}
	return l.app.Signal(sig)
}

func (l *Loop) startHook(kind plan.HookKind, cmds []hooks.Action, env []string, deadline time.Time) context.CancelCauseFunc {
	if l.relay == nil {
		// Built at the first hook: a tend without hooks never has one.
		l.relay = hooks.NewRelay(os.Stdout, os.Stderr)
	}
	get := hooks.HTTPClient(probe.UserAgent(l.cfg.Version), func(h hooks.HTTPGet, code int) {
		l.log.With(slog.String("url", h.URL), slog.Int("status", code)).Infof("%s answered %d", h, code)
	})
	r := hooks.Runner{Starter: l.childStarter(l.cfg.HookUser(kind)), Env: env, Get: get, Timeout: l.cfg.HookTimeout, Out: l.relay}
	return r.Go(cmds, deadline, func(err error, took time.Duration) {
		l.events <- hookDone{kind: kind, err: err, dur: took} // the loop reads events until every hook has reported
	})
}

func (l *Loop) startProbes(runs []probeRun) {
	// Every check shares one context, so stopProbes ends them all; a
	// second call (the main checks after the startup ones) joins it.
	if l.probeCtx == nil {
		l.probeCtx, l.stopProbe = context.WithCancel(context.Background())
	}
	ctx := l.probeCtx
	for _, r := range runs {
		c := r.check
		x := probe.Deps{Starter: l.childStarter(l.cfg.User), Env: r.env, UserAgent: probe.UserAgent(l.cfg.Version),
			Note: func(n string) {
				l.log.With(probeField(c), probeKindField(c)).Warnf("%s check %s: %s", c.Kind, c.Name, n)
			}}
		go probe.Run(ctx, r.check.Handler, r.check.Params, x, func(err error) bool {
			return l.deliver(ctx, probeDone{idx: r.idx, err: err}) && !(r.once && err == nil)
		})
	}
}

func (l *Loop) stopProbes() { l.stopProbe() }

// deliver hands the loop a check's or a dependency's result, unless ctx
// ended first (the loop may have stopped reading): false then.
func (l *Loop) deliver(ctx context.Context, ev event) bool {
	select {
	case l.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// childStarter starts hooks and exec probes (hooks.ChildStarter); as, when
// set, is the --user they run as.
func (l *Loop) childStarter(as *user.User) hooks.Starter {
	return hooks.ChildStarter{Reaper: l.reap, Fork: l.sigs.ForChild, As: as, Dir: l.childDir}
}

// startApp starts the app after pre-start: by then tend has set up its own
// signal dispositions and queue cap, so the fork goes through ForChild,
// which gives the app what tend inherited, as a start in New does.
func (l *Loop) startApp() (int, error) {
	var err error
	l.sigs.ForChild(func() { err = l.startAppNow() })
	if err != nil {
		return 0, err
	}
	return l.app.Pid, nil
}

func (l *Loop) publish(st *health.Status) {
	st.ZombiesReaped = l.orphans.Load()
	st.OOMKills, st.OOMKillsKnown = l.oom.Kills()
	l.server.Publish(st)
}

// countRest counts tend's descendants (as PID 1, every process in the
// namespace but tend), from /proc.
func (l *Loop) countRest() int { return reaper.CountDescendants(os.Getpid()) }

// signalRest signals every process left: as PID 1, kill(-1) reaches exactly
// the namespace minus tend; otherwise only tend's own descendants are
// signalled, never the whole system.
func (l *Loop) signalRest(sig unix.Signal) string {
	if l.pid1 {
		if err := reaper.KillAll(sig); err != nil && !errors.Is(err, unix.ESRCH) {
			l.log.With(logger.SignalField(sig), logger.ErrField(err)).Errorf("kill(-1, %s): %v", signals.Name(sig), err)
		}
		return "every process in the namespace"
	}
	n, err := reaper.SignalDescendants(os.Getpid(), sig)
	if err != nil {
		l.log.With(logger.SignalField(sig), logger.ErrField(err)).Errorf("signalling descendants: %v", err)
	}
	return fmt.Sprintf("%d descendant(s)", n)
}

// reapNow is every Reap the loop makes, then the trace's report of it.
func (l *Loop) reapNow() (bool, error) {
	none, err := l.reap.Reap()
	l.exits.Report(l.log)
	return none, err
}

// groupChild is reaper.GroupChild among tend's descendants.
func (l *Loop) groupChild(pgid int) (int, string) { return reaper.GroupChild(os.Getpid(), pgid) }
