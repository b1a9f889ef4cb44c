package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// TestOpenNoLinks: openat2(RESOLVE_NO_SYMLINKS) and the walk used where the
// kernel or a seccomp profile lacks it refuse the same links, in any
// component, and open the same files.
func TestOpenNoLinks(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "d", "f"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	must(t, os.Symlink(filepath.Join(dir, "d"), filepath.Join(dir, "ld")))
	must(t, os.Symlink(filepath.Join(dir, "d", "f"), filepath.Join(dir, "lf")))
	must(t, os.Symlink("/nonexistent", filepath.Join(dir, "dangling")))
	t.Chdir(dir)
	cases := []struct {
		path string
		want error // nil: opens
	}{
		{filepath.Join(dir, "d", "f"), nil},
		{filepath.Join(dir, "d", ".", "..", "d", "f"), nil},
		{"d/f", nil},
		{"./d/f", nil},
		{filepath.Join(dir, "lf"), unix.ELOOP},
		{filepath.Join(dir, "dangling"), unix.ELOOP},
		{filepath.Join(dir, "ld", "f"), unix.ELOOP},
		{"ld/f", unix.ELOOP},
		{filepath.Join(dir, "file", "x"), unix.ENOTDIR},
		{filepath.Join(dir, "d", "missing"), unix.ENOENT},
		{filepath.Join(dir, "missing", "f"), unix.ENOENT},
	}
	const flags = unix.O_WRONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	for _, walk := range []bool{false, true} {
		for _, c := range cases {
			open := openNoLinks
			if walk {
				open = walkNoLinks
			}
			fd, err := open(c.path, flags, 0)
			if err == nil {
				_ = unix.Close(fd) // opened only to see that it opens
			}
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("walk=%v %s: %v, want %v", walk, c.path, err, c.want)
			}
		}
	}
	// O_EXCL through the walk: a new file appears; a link never is followed.
	fd, err := walkNoLinks(filepath.Join(dir, "d", "new"), flags|unix.O_CREAT|unix.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_ = unix.Close(fd) // created: that was the point
	if _, err := walkNoLinks(filepath.Join(dir, "dangling"), flags|unix.O_CREAT|unix.O_EXCL, 0o644); !errors.Is(err, unix.EEXIST) {
		t.Fatalf("O_EXCL over a dangling link: %v", err)
	}
}

// TestOpenNoLinksFallsBack: where openat2 is refused (ENOSYS on an old
// kernel, EPERM from a seccomp profile), the walk answers.
func TestOpenNoLinksFallsBack(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Symlink(dir, filepath.Join(dir, "l")))
	defer func(f func(int, string, *unix.OpenHow) (int, error)) { openat2 = f }(openat2)
	for _, errno := range []error{unix.ENOSYS, unix.EPERM} {
		calls := 0
		openat2 = func(int, string, *unix.OpenHow) (int, error) { calls++; return -1, errno }
		if _, err := openNoLinks(filepath.Join(dir, "l", "x"), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644); !errors.Is(err, unix.ELOOP) || calls != 1 {
			t.Errorf("openat2 %v: %v after %d calls, want ELOOP from the walk", errno, err, calls)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "x")); err == nil {
		t.Fatal("created through the link")
	}
}

// TestTerminationMessageBounded: a write that never returns (a hung
// network file system) holds tend for terminationBound, then is given up
// with a warning.
func TestTerminationMessageBounded(t *testing.T) {
	defer func(f func(string, []byte) error, d time.Duration) { terminationWrite, terminationBound = f, d }(terminationWrite, terminationBound)
	release := make(chan struct{})
	defer close(release)
	terminationWrite = func(string, []byte) error { <-release; return nil }
	terminationBound = 50 * time.Millisecond
	var log strings.Builder
	l := &Loop{cfg: plan.Config{TerminationMessagePath: "/stalled"}, log: NewLogger(&log, plan.LevelWarn, plan.LogText)}
	done := make(chan struct{})
	go func() { l.writeTerminationMessage("why"); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writeTerminationMessage waited for a stalled write")
	}
	if !strings.Contains(log.String(), "WARN: termination message not written to /stalled: no answer within 50ms") {
		t.Fatalf("log: %q", log.String())
	}
}
