// Package watch tells when the bytes of a set of files and directories
// change: inotify watches on the directories that hold them (Watcher),
// and a bounded digest of what they hold (Take). Its goroutine only sends
// snapshots; Reloads, a value the event loop keeps, decides on each.
package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tend-init/tend/internal/filetype"
	"golang.org/x/sys/unix"
)

// Bounds on one Take: the files in a watched directory are input the app
// (or anyone who can write there) controls. A ConfigMap holds at most
// 1 MiB, so these leave room for any real configuration.
const (
	maxBytes   = 16 << 20 // bytes read, over every file of one Take
	maxEntries = 1024     // files and directories visited, in all
	maxDepth   = 8        // directory levels below a watched directory
)

// Snapshot is what the watched paths held at one moment: for each file,
// the hex SHA-256 of its bytes and size, or a note in parentheses saying
// why there are no bytes (missing, not a regular file, unreadable). Two
// snapshots are equal when the bytes are.
type Snapshot map[string]string

// Take reads every path: a file (through symbolic links, to a regular
// file only), or a directory, read to maxDepth levels. Names beginning
// with ".." are skipped inside directories: the kubelet's atomic writer
// reserves them (pkg/volume/util/atomic_writer.go: "AtomicWriter reserves
// the set of pathnames starting with `..`") for its timestamped directory
// and the ..data link to it, whose names change at every update even
// when no byte does; the user-visible names reach the same files.
func Take(paths []string) Snapshot {
	t := taker{s: Snapshot{}, budget: maxBytes}
	for _, p := range paths {
		t.visit(filepath.Clean(p), 0)
	}
	return t.s
}

type taker struct {
	s       Snapshot
	budget  int64
	entries int
}

func (t *taker) visit(path string, depth int) {
	t.entries++
	if t.entries > maxEntries {
		t.s[filepath.Dir(path)] = fmt.Sprintf("(more than %d entries: the rest not read)", maxEntries)
		return
	}
	var st unix.Stat_t
	// stat, not lstat: the kubelet's visible names are links. A loop of
	// links ends in ELOOP, a missing target in ENOENT.
	if err := unix.Stat(path, &st); err != nil {
		t.s[path] = note(err)
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		t.s[path] = t.digest(path)
	case unix.S_IFDIR:
		if depth >= maxDepth {
			t.s[path] = fmt.Sprintf("(directory deeper than %d levels: not read)", maxDepth)
			return
		}
		t.dir(path, depth)
	default:
		// A FIFO, a device, a socket: never opened, since opening some
		// has effects (a FIFO's open waits for a writer, a watchdog
		// device starts counting) and reading some never ends.
		t.s[path] = "(not a regular file: " + strings.TrimPrefix(filetype.Of(st.Mode), "a ") + ")"
	}
}

func (t *taker) dir(path string, depth int) {
	f, err := os.Open(path)
	if err != nil {
		t.s[path] = note(err)
		return
	}
	names, err := f.Readdirnames(maxEntries + 1)
	_ = f.Close() // read-only: nothing to lose
	if err != nil && !errors.Is(err, io.EOF) {
		t.s[path] = note(err)
		return
	}
	sort.Strings(names)
	t.s[path] = "(directory)" // an empty directory is still there
	for _, n := range names {
		if strings.HasPrefix(n, "..") {
			continue
		}
		t.visit(filepath.Join(path, n), depth+1)
	}
}

// digest hashes a regular file's size and at most the bytes left in the
// budget. The open is O_NONBLOCK, and the descriptor is checked again: a
// FIFO swapped in after the stat neither blocks the open nor is read.
func (t *taker) digest(path string) string {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return note(err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer func() { _ = f.Close() }() // read-only: nothing to lose
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return note(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "(not a regular file: " + strings.TrimPrefix(filetype.Of(st.Mode), "a ") + ")"
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00", st.Size)
	n, err := io.Copy(h, io.LimitReader(f, t.budget))
	t.budget -= n
	if err != nil {
		return note(err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if t.budget <= 0 && n < st.Size {
		// Past the bound: the size and the first bytes still tell most
		// edits apart.
		return sum + fmt.Sprintf(" (first %d of %d bytes)", n, st.Size)
	}
	return sum
}

func note(err error) string {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return "(" + errno.Error() + ")"
	}
	return "(" + err.Error() + ")"
}

// Diff lists, sorted, the paths whose bytes differ between old and s:
// changed, added or removed.
func (s Snapshot) Diff(old Snapshot) []string {
	var out []string
	for p, v := range s {
		if o, ok := old[p]; !ok || o != v {
			out = append(out, p)
		}
	}
	for p := range old {
		if _, ok := s[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
