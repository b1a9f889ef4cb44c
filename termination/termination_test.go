package termination

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
// network file system) holds tend for Bound, then is given up as a
// refusal, which the loop logs as a warning.
func TestTerminationMessageBounded(t *testing.T) {
	defer func(f func(string, []byte) error, d time.Duration) { terminationWrite, Bound = f, d }(terminationWrite, Bound)
	release := make(chan struct{})
	defer close(release)
	terminationWrite = func(string, []byte) error { <-release; return nil }
	Bound = 50 * time.Millisecond
	done := make(chan error, 1)
	go func() { done <- Write("/stalled", "why") }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write waited for a stalled write")
	}
	var r *Refusal
	if !errors.As(err, &r) || err.Error() != "no answer within 50ms" {
		t.Fatalf("err: %v", err)
	}
}

// TestTerminationText: tend's reason is escaped and capped at the
// kubelet's 4,096 bytes, with "..." at a cut.
func TestTerminationText(t *testing.T) {
	if got := string(terminationText("post-start failed: exit 3: exit code 3")); got != "post-start failed: exit 3: exit code 3" {
		t.Fatalf("plain reason changed: %q", got)
	}
	if got := string(terminationText("probe failed: status 500: \x1b[2J\x00\v\u2028")); got != `probe failed: status 500: \x1b[2J\x00\x0b\u2028` {
		t.Fatalf("not escaped: %q", got)
	}
	exact := strings.Repeat("a", maxTerminationMessage)
	if got := terminationText(exact); string(got) != exact {
		t.Fatalf("a reason of exactly 4096 bytes was cut to %d", len(got))
	}
	for _, long := range []string{strings.Repeat("x", 10000), strings.Repeat("\x1b", 5000), strings.Repeat("世", 3000)} {
		got := terminationText(long)
		if len(got) > maxTerminationMessage || len(got) < maxTerminationMessage-8 || !bytes.HasSuffix(got, []byte("...")) || !utf8.Valid(got) {
			t.Fatalf("cut of a %d-byte reason: %d bytes, ends %q", len(long), len(got), got[max(0, len(got)-12):])
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
