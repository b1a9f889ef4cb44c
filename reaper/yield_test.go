package reaper

import (
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReapLetsTheNetworkIn reaps a storm with one P, as tend runs, and
// checks that a goroutine waiting on a pipe in the netpoller runs between
// reap chunks once its pipe is readable, as the health server's
// connections must: within a few chunks, not at the end of the storm nor at
// sysmon's pace. It counts chunks, not time. Each of two bytes is written
// from the orphan callback; the first may be picked up by a thread already
// blocked in the netpoller, so the test judges the second, written once
// the first has been read.
func TestReapLetsTheNetworkIn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const n = 20 * reapChunk
	for i := 0; i < n; i++ {
		pid, err := syscall.ForkExec("/bin/true", []string{"true"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Wait until it has exited, without reaping it: Reap below must
		// find a zombie storm, not processes still starting.
		var si unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &si, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				if err != nil {
					t.Fatalf("waitid %d: %v", pid, err)
				}
				break
			}
		}
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(p[0]), "test-read") // in the netpoller, like a socket
	defer r.Close()
	defer unix.Close(p[1])
	var reaped, first, second atomic.Int64
	first.Store(-1)
	second.Store(-1)
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		close(started)
		var b [1]byte
		for _, at := range []*atomic.Int64{&first, &second} {
			if _, err := r.Read(b[:]); err != nil {
				return
			}
			at.Store(reaped.Load())
		}
	}()
	<-started // with one P the reader now runs on into its Read and parks there
	var wrote2 atomic.Int64
	wrote2.Store(-1)
	rp := New(func(Exit) {
		k := reaped.Add(1)
		switch {
		case k == 1:
			_, _ = unix.Write(p[1], []byte{1}) // cannot fail: an empty non-blocking pipe
		case wrote2.Load() < 0 && first.Load() >= 0:
			wrote2.Store(k)
			_, _ = unix.Write(p[1], []byte{2}) // as above
		}
	})
	if _, err := rp.Reap(); err != nil {
		t.Fatal(err)
	}
	<-done // the reader has both bytes by now, or Reap's end let it run
	t.Logf("reaped %d; second byte written at %d, read at %d", reaped.Load(), wrote2.Load(), second.Load())
	if reaped.Load() < n {
		t.Fatalf("reaped %d of %d", reaped.Load(), n)
	}
	if wrote2.Load() < 0 {
		t.Fatalf("the reader did not run during the storm of %d (first byte read at %d)", n, first.Load())
	}
	if got := second.Load() - wrote2.Load(); got > 3*reapChunk {
		t.Fatalf("the network waited %d reaps (%.1f chunks of %d) before its goroutine ran; want at most 3 chunks", got, float64(got)/reapChunk, reapChunk)
	}
}
