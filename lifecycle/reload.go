package lifecycle

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/watch"
)

// Reload on a configuration change (--reload-on): the watcher's goroutine
// only sends snapshots, watch.Reloads decides, and the machine acts.

// reloadSeen is a snapshot the watcher took after a burst of changes.
type reloadSeen struct{ snap watch.Snapshot }

// watchReload starts the watcher (watch.Setup) before the app.
func (l *Loop) watchReload() error {
	if len(l.cfg.ReloadOn) == 0 {
		return nil
	}
	base, stop, err := watch.Setup(l.log, l.cfg.ReloadOn, func(s watch.Snapshot, stopped <-chan struct{}) {
		select {
		case l.events <- reloadSeen{s}:
		case <-stopped: // the loop has returned and reads no more
		}
	})
	if err != nil {
		return fmt.Errorf("--reload-on: %w", err)
	}
	l.m.st.reload.Applied = base
	l.stopWatch = stop
	return nil
}

// onReloadSeen acts on what watch.Reloads decided for a snapshot.
func (m *machine) onReloadSeen(s watch.Snapshot) {
	stage := watch.Stopping
	switch m.st.phase {
	case phaseStarting, phaseRunning, phasePause:
		stage = watch.Live
	case phaseNone, phaseWaiting, phasePreStart:
		stage = watch.Before // the app reads the new bytes when it starts
	}
	verdict, changed := m.st.reload.Seen(s, stage, m.st.hooks[plan.HookReload] != nil)
	what := watch.Describe(changed, 4)
	log := m.log.With(slog.String("changed", what))
	switch {
	case verdict == watch.Same:
		m.log.Debugf("reload: files touched, no byte changed")
	case verdict == watch.Refused:
		log.Infof("reload: %s changed, not reloading: a stop is under way", what)
	case verdict == watch.Deferred:
		log.Debugf("reload: %s changed while reload runs: once it ends", what)
	case verdict == watch.Adopted: // the app has yet to read them
	case len(m.cfg.Reload) > 0:
		log.Infof("reload: %s changed: running reload", what)
		m.startHook(plan.HookReload, time.Time{}) // bounded by --hook-timeout alone
	case !m.st.hasApp || m.st.appExited:
		log.Infof("reload: %s changed: no app to send %s to", what, signals.Name(m.cfg.ReloadSignal))
	default:
		m.log.With(slog.String("changed", what), logger.SignalField(m.cfg.ReloadSignal)).Infof("reload: %s changed: sending %s to the app", what, signals.Name(m.cfg.ReloadSignal))
		m.forward(m.cfg.ReloadSignal)
	}
}

// onReloadDone runs what changed while the reload action ran.
func (m *machine) onReloadDone() {
	if p := m.st.reload.Ended(); p != nil {
		m.onReloadSeen(p)
	}
}
