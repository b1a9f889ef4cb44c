package lifecycle

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/watch"
)

// Reload on a configuration change (--reload-on): the watcher's goroutine
// (package watch) only sends snapshots of the watched bytes; the machine
// compares them with what the app was last given and decides.

// reloadSeen is a snapshot the watcher took after a burst of changes.
type reloadSeen struct{ snap watch.Snapshot }

// reloadState is the machine's part of reloading.
type reloadState struct {
	applied watch.Snapshot // the bytes the app started with or was last reloaded for
	pending watch.Snapshot // seen while a reload action ran; nil: none
	count   uint64         // reloads begun, for tend_reloads_total
}

// watchReload starts the watcher (watch.Start), before the app: the
// baseline predates the app's own read.
func (l *Loop) watchReload() error {
	if len(l.cfg.ReloadOn) == 0 {
		return nil
	}
	base, stop, err := watch.Start(l.cfg.ReloadOn, func(s watch.Snapshot, stopped <-chan struct{}) {
		select {
		case l.events <- reloadSeen{s}:
		case <-stopped: // the loop has returned and reads no more
		}
	}, func(err error) {
		l.log.With(logger.ErrField(err)).Errorf("reload: the watcher stopped: %v", err)
	})
	if err != nil {
		return fmt.Errorf("--reload-on: %w", err)
	}
	l.m.st.reload.applied = base
	l.stopWatch = stop
	l.log.With(slog.Int("paths", len(l.cfg.ReloadOn))).Infof("reload: watching %s", strings.Join(quoteAll(l.cfg.ReloadOn), ", "))
	for _, p := range l.cfg.ReloadOn {
		// A FIFO or a device (--reload-on /dev/zero by mistake) is never
		// read, so its bytes never change: say so once, rather than watch
		// in silence for a reload that cannot come.
		if n := base[filepath.Clean(p)]; strings.HasPrefix(n, "(not a regular file") {
			l.log.Warnf("reload: %s is %s: it cannot trigger a reload until a file or directory takes its place", excerpt.Quote(p), strings.Trim(n, "()"))
		}
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = excerpt.Quote(s)
	}
	return out
}

// onReloadSeen decides on a snapshot: nothing when no byte changed;
// before the app starts, the new bytes are the ones it will read; during
// a stop, no reload; while a reload action runs, the snapshot waits for it.
func (m *machine) onReloadSeen(s watch.Snapshot) {
	changed := s.Diff(m.st.reload.applied)
	if len(changed) == 0 {
		m.log.Debugf("reload: files touched, no byte changed")
		return
	}
	switch m.st.phase {
	case phaseStarting, phaseRunning, phasePause:
	case phaseNone, phasePreStart:
		m.st.reload.applied = s
		return
	default:
		m.log.With(slog.String("changed", describe(changed))).Infof("reload: %s changed, not reloading: a stop is under way", describe(changed))
		return
	}
	if m.st.hooks[plan.HookReload] != nil {
		m.st.reload.pending = s
		m.log.With(slog.String("changed", describe(changed))).Debugf("reload: %s changed while reload runs: once it ends", describe(changed))
		return
	}
	m.st.reload.applied = s
	m.st.reload.count++
	if len(m.cfg.Reload) > 0 {
		m.log.With(slog.String("changed", describe(changed))).Infof("reload: %s changed: running reload", describe(changed))
		m.startHook(plan.HookReload, time.Time{}) // bounded by --hook-timeout alone
		return
	}
	if !m.st.hasApp || m.st.appExited {
		m.log.With(slog.String("changed", describe(changed))).Infof("reload: %s changed: no app to send %s to", describe(changed), signals.Name(m.cfg.ReloadSignal))
		return
	}
	m.log.With(slog.String("changed", describe(changed)), logger.SignalField(m.cfg.ReloadSignal)).Infof("reload: %s changed: sending %s to the app", describe(changed), signals.Name(m.cfg.ReloadSignal))
	m.forward(m.cfg.ReloadSignal)
}

// onReloadDone runs what changed while the reload action ran.
func (m *machine) onReloadDone() {
	if p := m.st.reload.pending; p != nil {
		m.st.reload.pending = nil
		m.onReloadSeen(p)
	}
}

// describe names the changed paths, escaped, at most four.
func describe(paths []string) string {
	const most = 4
	q := quoteAll(paths[:min(len(paths), most)])
	if len(paths) > most {
		q = append(q, fmt.Sprintf("and %d more", len(paths)-most))
	}
	return strings.Join(q, ", ")
}
