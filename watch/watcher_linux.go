package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// dirEvents are the changes in a watched directory that can change the
// bytes behind a name in it: a link or file created, removed or renamed
// over (the kubelet's rename of ..data_tmp to ..data arrives as
// IN_MOVED_TO, an editor's save-by-rename the same), and a file written
// in place (IN_MODIFY for the truncate and each write, IN_CLOSE_WRITE at
// the end). The directory's own removal or rename ends its watch.
const dirEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// Watcher sends a Snapshot after each burst of changes in the directories
// that hold the watched paths.
type Watcher struct {
	paths []string
	f     *os.File         // the inotify descriptor, non-blocking: read through the netpoller, no thread held
	wds   map[int32]string // watch descriptor -> directory
}

// New watches the directories that hold paths: a directory itself, and a
// file's directory (so that a rename over it or a swap of a link on its
// way is seen, which a watch on the file's inode would miss), plus the
// directory of the file a link resolves to. A directory that cannot be
// watched at the start is an error.
func New(paths []string) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	w := &Watcher{paths: paths, f: os.NewFile(uintptr(fd), "inotify"), wds: map[int32]string{}}
	if err := w.rewatch(true); err != nil {
		_ = w.f.Close() // the error above is the one to report
		return nil, err
	}
	return w, nil
}

// dirs is the set of directories to watch now; links are resolved again
// at every burst, since the atomic writer's target changes with each swap.
func (w *Watcher) dirs() []string {
	var out []string
	for _, p := range w.paths {
		p = filepath.Clean(p)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, p)
			continue
		}
		out = append(out, filepath.Dir(p))
		if r, err := filepath.EvalSymlinks(p); err == nil && filepath.Dir(r) != filepath.Dir(p) {
			out = append(out, filepath.Dir(r))
		}
	}
	return out
}

// rewatch adds a watch on each directory dirs names (the same inode gives
// the same descriptor back) and drops those no longer named. strict: a
// failure is an error, as at the start; later, a directory that went
// away simply shows in the snapshot as missing.
func (w *Watcher) rewatch(strict bool) error {
	// Through the raw connection, not f.Fd(): Fd turns the descriptor
	// back to blocking, which ends the read deadlines Run relies on, and
	// Control keeps it from being closed (and its number reused) meanwhile.
	rc, err := w.f.SyscallConn()
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	var werr error
	cerr := rc.Control(func(fd uintptr) {
		keep := map[int32]bool{}
		for _, d := range w.dirs() {
			wd, err := unix.InotifyAddWatch(int(fd), d, dirEvents)
			if err != nil {
				if strict && werr == nil {
					werr = fmt.Errorf("inotify_add_watch %s: %w", d, err)
				}
				continue
			}
			w.wds[int32(wd)], keep[int32(wd)] = d, true
		}
		for wd := range w.wds {
			if !keep[wd] {
				_, _ = unix.InotifyRmWatch(int(fd), uint32(wd)) // EINVAL: the kernel already dropped it (IN_IGNORED)
				delete(w.wds, wd)
			}
		}
	})
	if cerr != nil {
		return fmt.Errorf("inotify: %w", cerr)
	}
	return werr
}

// Run reads events until Close, and calls send with a fresh Snapshot once
// a burst has been quiet for quiet, or has lasted most: the kubelet's swap
// is a handful of events within a millisecond, an editor's save a few
// more, and a directory written to without pause still gets a snapshot
// every most. The events themselves are not parsed: any of them means
// "look again", and the snapshot says whether a byte changed.
func (w *Watcher) Run(quiet, most time.Duration, send func(Snapshot)) error {
	buf := make([]byte, 16*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	var first, fire time.Time
	for {
		_ = w.f.SetReadDeadline(fire) // cannot fail on a pollable descriptor; zero: none
		_, err := w.f.Read(buf)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			first, fire = time.Time{}, time.Time{}
			_ = w.rewatch(false) // never fails when not strict
			send(Take(w.paths))
			continue
		case err != nil:
			if errors.Is(err, os.ErrClosed) {
				return nil
			}
			return fmt.Errorf("read inotify: %w", err)
		}
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		fire = now.Add(quiet)
		if last := first.Add(most); fire.After(last) {
			fire = last
		}
	}
}

// Close ends Run.
func (w *Watcher) Close() error { return w.f.Close() }

// The debounce Start gives Run. A kubelet swap is a handful of events
// within a millisecond; an editor's save a few more within some; a
// directory written to without pause is still looked at every Most.
const (
	Quiet = 100 * time.Millisecond
	Most  = 2 * time.Second
)

// Start watches paths, then takes the baseline: the watches are in place
// before it is read, so no change between the two is lost. Run goes on a
// goroutine of its own, which hands each snapshot to send with a channel
// that stop closes (send must return once it is closed: the reader has
// gone), and gives failed the error that ended it. stop ends the
// goroutine.
func Start(paths []string, send func(s Snapshot, stopped <-chan struct{}), failed func(error)) (base Snapshot, stop func(), err error) {
	w, err := New(paths)
	if err != nil {
		return nil, nil, err
	}
	base = Take(paths)
	done := make(chan struct{})
	stop = func() {
		close(done)
		_ = w.Close() // ends Run; nothing to flush
	}
	go func() {
		if err := w.Run(Quiet, Most, func(s Snapshot) { send(s, done) }); err != nil {
			failed(err)
		}
	}()
	return base, stop, nil
}
