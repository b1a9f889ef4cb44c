package watch

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/logger"
)

// Setup is Start for --reload-on as the event loop runs it, with the lines
// that say what is watched, what can never trigger a reload (Inert), and
// that the watcher stopped. Call it before the app starts: the baseline
// predates the app's own read.
func Setup(log *logger.Logger, paths []string, send func(s Snapshot, stopped <-chan struct{})) (base Snapshot, stop func(), err error) {
	base, stop, err = Start(paths, send, func(err error) {
		log.With(logger.ErrField(err)).Errorf("reload: the watcher stopped: %v", err)
	})
	if err != nil {
		return nil, nil, err
	}
	log.With(slog.Int("paths", len(paths))).Infof("reload: watching %s", Describe(paths, -1))
	for _, p := range base.Inert(paths) {
		// Said once, rather than watch in silence for a reload that cannot come.
		log.Warnf("reload: %s is %s: it cannot trigger a reload until a file or directory takes its place", excerpt.Quote(p[0]), p[1])
	}
	return base, stop, nil
}

// Reloads is what reloading keeps between snapshots: a value the event
// loop holds and updates, never shared. Its zero value has seen nothing.
type Reloads struct {
	// Applied is the bytes the app started with or was last reloaded for.
	Applied Snapshot
	// Count is the reloads begun, for tend_reloads_total.
	Count   uint64
	pending Snapshot // seen while a reload action ran; nil: none
}

// Stage is where the app stands, as a reload sees it.
type Stage int

const (
	// Before: the app has not started; the new bytes are the ones it reads.
	Before Stage = iota
	// Live: the app (or pause mode) runs and can be reloaded.
	Live
	// Stopping: a stop is under way; nothing is reloaded.
	Stopping
)

// Verdict is what Seen decided.
type Verdict int

const (
	Same     Verdict = iota // files touched, no byte changed
	Adopted                 // before the app: s is the new baseline, nothing to do
	Refused                 // a stop is under way: not reloading
	Deferred                // a reload action runs: s waits for it to end (Ended)
	Reload                  // reload now: s is applied and counted
)

// Seen decides on snapshot s at stage, with busy when a reload action
// runs: never two reloads at once, and several changes made during one
// collapse into one after it. It returns the paths that changed.
func (r *Reloads) Seen(s Snapshot, stage Stage, busy bool) (Verdict, []string) {
	changed := s.Diff(r.Applied)
	switch {
	case len(changed) == 0:
		return Same, nil
	case stage == Before:
		r.Applied = s
		return Adopted, changed
	case stage != Live:
		return Refused, changed
	case busy:
		r.pending = s
		return Deferred, changed
	}
	r.Applied = s
	r.Count++
	return Reload, changed
}

// Ended takes the snapshot deferred while a reload action ran, for Seen
// again; nil when none.
func (r *Reloads) Ended() Snapshot {
	p := r.pending
	r.pending = nil
	return p
}

// Inert lists the paths of base that no change can reach: a FIFO or a
// device (--reload-on /dev/zero by mistake) is never read, so its bytes
// never change. Each comes with what it is ("not a regular file: FIFO").
func (s Snapshot) Inert(paths []string) (inert [][2]string) {
	for _, p := range paths {
		if n := s[filepath.Clean(p)]; strings.HasPrefix(n, "(not a regular file") {
			inert = append(inert, [2]string{p, strings.Trim(n, "()")})
		}
	}
	return inert
}

// Describe names paths, escaped, at most most of them (all when most < 0).
func Describe(paths []string, most int) string {
	if most < 0 {
		most = len(paths)
	}
	q := make([]string, 0, most+1)
	for _, p := range paths[:min(len(paths), most)] {
		q = append(q, excerpt.Quote(p))
	}
	if len(paths) > most {
		q = append(q, fmt.Sprintf("and %d more", len(paths)-most))
	}
	return strings.Join(q, ", ")
}
