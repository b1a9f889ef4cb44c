package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/internal/kubeletvol"
)

func TestTakeDiff(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.conf")
	if err := os.WriteFile(a, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	s1 := Take([]string{dir})
	if d := Take([]string{dir}).Diff(s1); len(d) != 0 {
		t.Fatalf("same bytes, diff %v", d)
	}
	// Truncate and write the same bytes: no change.
	if err := os.WriteFile(a, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := Take([]string{dir}).Diff(s1); len(d) != 0 {
		t.Fatalf("rewritten with the same bytes, diff %v", d)
	}
	if err := os.WriteFile(a, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.conf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Take([]string{dir}).Diff(s1), " ")
	if want := a + " " + filepath.Join(dir, "b.conf"); got != want {
		t.Fatalf("diff %q, want %q", got, want)
	}
}

// TestTakeHostile: what a watched directory can hold that must neither
// hang nor bloat tend: a FIFO with no writer, links to /dev/zero and to
// a FIFO, a loop of links, a file past the byte bound.
func TestTakeHostile(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero": "/dev/zero", "tofifo": "fifo", "loop1": "loop2", "loop2": "loop1", "self": "."} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	_ = f.Close() // written through Truncate; nothing buffered
	done := make(chan Snapshot, 1)
	began := time.Now()
	go func() { done <- Take([]string{dir}) }()
	var s Snapshot
	select {
	case s = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Take hung on a hostile directory")
	}
	t.Logf("Take over a FIFO, /dev/zero, a link loop and a 64 MiB file: %s", time.Since(began))
	for name, want := range map[string]string{
		"fifo": "(not a regular file: FIFO)", "tofifo": "(not a regular file: FIFO)",
		"zero": "(not a regular file: character device)", "loop1": "(too many levels of symbolic links)",
	} {
		if got := s[filepath.Join(dir, name)]; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := s[big]; !strings.Contains(got, "(first 16777216 of 67108864 bytes)") {
		t.Errorf("big: %q, want the bound noted", got)
	}
	if len(s) > maxEntries+1 {
		t.Errorf("%d entries, more than the bound %d", len(s), maxEntries)
	}
}

// TestWatcherKubeletSwap swaps a ConfigMap volume as the kubelet does and
// counts the snapshots: one per swap, and the same bytes swapped in again
// give a snapshot equal to the last.
func TestWatcherKubeletSwap(t *testing.T) {
	dir := t.TempDir()
	if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": "v1"}); err != nil {
		t.Fatal(err)
	}
	for _, watched := range []string{dir, filepath.Join(dir, "nginx.conf")} {
		t.Run(filepath.Base(watched), func(t *testing.T) {
			w, err := New([]string{watched})
			if err != nil {
				t.Fatal(err)
			}
			snaps := make(chan Snapshot, 16)
			ran := make(chan error, 1)
			go func() { ran <- w.Run(50*time.Millisecond, time.Second, func(s Snapshot) { snaps <- s }) }()
			base := Take([]string{watched})
			next := func() Snapshot {
				select {
				case s := <-snaps:
					return s
				case <-time.After(30 * time.Second):
					t.Fatal("no snapshot within 30 s of a swap")
				}
				return nil
			}
			swapped := time.Now()
			if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": "v2-" + watched}); err != nil {
				t.Fatal(err)
			}
			s := next()
			t.Logf("swap to snapshot: %s", time.Since(swapped))
			if d := s.Diff(base); len(d) != 1 || filepath.Base(d[0]) != "nginx.conf" {
				t.Fatalf("diff after a swap %v, want nginx.conf", d)
			}
			// The same bytes again: a burst, a snapshot, no difference.
			if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": "v2-" + watched}); err != nil {
				t.Fatal(err)
			}
			if d := next().Diff(s); len(d) != 0 {
				t.Fatalf("same bytes, diff %v", d)
			}
			select {
			case extra := <-snaps:
				t.Fatalf("a second snapshot for one burst: %v", extra)
			case <-time.After(300 * time.Millisecond): // a quiet period of 50 ms, six times over
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNewMissingDirectory(t *testing.T) {
	if _, err := New([]string{"/nonexistent-tend/x.conf"}); err == nil || !strings.Contains(err.Error(), "inotify_add_watch /nonexistent-tend") {
		t.Fatalf("err %v, want the directory named", err)
	}
}
