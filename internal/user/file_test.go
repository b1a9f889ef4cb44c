package user

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEachRefusesWhatIsNotAFile: /etc/passwd as a device, a FIFO (with no
// writer: the open must not block), a link to /dev/zero or a directory is
// a one-line error, at once. Before, os/user read /dev/zero until its
// memory reached 149 MB, and blocked on the FIFO.
func TestEachRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file (a character device)"},
		{"/dev/null", "not a regular file (a character device)"},
		{link, "not a regular file (a character device)"},
		{fifo, "not a regular file (a FIFO)"},
		{dir, "not a regular file (a directory)"},
	} {
		f := files{passwd: c.path, group: c.path, maxLine: maxLine, maxTotal: maxTotal}
		for _, spec := range []string{"app", "0", "0:app"} {
			done := make(chan error, 1)
			start := time.Now()
			go func() { _, err := f.lookup(spec); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.path+": "+c.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s as the files, lookup(%q): %v; want one line with %q", c.path, spec, err, c.want)
				}
				t.Logf("%s, lookup(%q): %v after %v", c.path, spec, err, time.Since(start))
			case <-time.After(10 * time.Second):
				t.Fatalf("%s as the files, lookup(%q): still reading after 10 s", c.path, spec)
			}
		}
	}
}

// TestEachBounds: a line past the limit (with or without a newline, at
// the start or after good lines, a 64 MB one or a 1 GiB sparse file) and
// a file past the total are errors naming the file; a line exactly at
// the limit and a last line without a newline are read.
func TestEachBounds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sparse := filepath.Join(dir, "sparse")
	if f, err := os.Create(sparse); err != nil {
		t.Fatal(err)
	} else if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	} else if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	const lim = 64
	for _, c := range []struct {
		name, path     string
		maxLine, total int
		want           string // "": the lines
		lines          []string
	}{
		{name: "at the limit", path: write("at", strings.Repeat("a", lim-1)+"\nb"), maxLine: lim, total: 1 << 20, lines: []string{strings.Repeat("a", lim-1), "b"}},
		// The limit counts the newline, even on a last line without one.
		{name: "no newline", path: write("nonl", "b\n"+strings.Repeat("a", lim-1)), maxLine: lim, total: 1 << 20, lines: []string{"b", strings.Repeat("a", lim-1)}},
		{name: "no newline, over", path: write("nonl2", strings.Repeat("a", lim)), maxLine: lim, total: 1 << 20, want: "line 1 is longer than 64 bytes"},
		{name: "over by one", path: write("over", strings.Repeat("a", lim)+"\n"), maxLine: lim, total: 1 << 20, want: "line 1 is longer than 64 bytes"},
		{name: "long third line", path: write("third", "a\nb\n"+strings.Repeat("c", 1000)), maxLine: lim, total: 1 << 20, want: "line 3 is longer than 64 bytes"},
		{name: "comments count", path: write("comments", "# x\n\n"+strings.Repeat("c", 1000)), maxLine: lim, total: 1 << 20, want: "line 3 is longer"},
		{name: "total", path: write("total", strings.Repeat("a:b\n", 1000)), maxLine: lim, total: 1000, want: "longer than 1000 bytes"},
		{name: "total exactly", path: write("exact", strings.Repeat("a:b\n", 250)), maxLine: lim, total: 1000, lines: make([]string, 250)},
		{name: "64 MB line", path: write("64m", strings.Repeat("x", 64<<20)), maxLine: maxLine, total: maxTotal, want: "line 1 is longer than 65536 bytes"},
		{name: "sparse 1 GiB", path: sparse, maxLine: maxLine, total: maxTotal, want: "line 1 is longer than 65536 bytes"},
	} {
		var got []string
		start := time.Now()
		err := each(c.path, c.maxLine, c.total, func(_ int, line []byte) (bool, error) {
			got = append(got, string(line))
			return false, nil
		})
		took := time.Since(start)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.path+": "+c.want) {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
			t.Logf("%s: %v after %v", c.name, err, took)
			continue
		}
		if err != nil || len(got) != len(c.lines) || c.lines[0] != "" && strings.Join(got, "\n") != strings.Join(c.lines, "\n") {
			t.Errorf("%s: %d lines, %v", c.name, len(got), err)
		}
	}
}

// TestLookupDevZeroFigure reports how long LookupUser's reader takes to
// refuse /dev/zero and a 64 MB line, and what it allocates (the figure in
// RELIABILITY.md); only a generous hang bound is asserted.
func TestLookupDevZeroFigure(t *testing.T) {
	big := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 64<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", big} {
		f := files{passwd: path, group: path, maxLine: maxLine, maxTotal: maxTotal}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := f.lookup("app")
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil || took > 5*time.Second {
			t.Errorf("%s: %v after %v", path, err, took)
		}
		t.Logf("%s: refused in %v, %d KiB allocated: %v", path, took, (after.TotalAlloc-before.TotalAlloc)>>10, err)
	}
}
