package notify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// manager is a test-owned NOTIFY_SOCKET, standing in for podman's conmon
// or systemd: a datagram socket that the test reads with a deadline.
func manager(t *testing.T, name string) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) }) // test cleanup; nothing to do on error
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: name}); err != nil {
		t.Fatal(err)
	}
	tv := unix.NsecToTimeval(int64(10 * time.Second))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	return fd
}

func recvString(t *testing.T, fd int) string {
	t.Helper()
	b := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, b, 0)
	if err != nil {
		t.Fatalf("manager got nothing: %v", err)
	}
	return string(b[:n])
}

func TestSenderReachesManager(t *testing.T) {
	abstract := fmt.Sprintf("@tend-notify-test-%d", os.Getpid())
	for _, name := range []string{filepath.Join(t.TempDir(), "notify"), abstract} {
		t.Run(name, func(t *testing.T) {
			fd := manager(t, name)
			s, err := FromEnv(lookupOf(EnvSocket, name))
			if err != nil || s == nil {
				t.Fatalf("FromEnv: %v %v", s, err)
			}
			defer s.Close()
			for _, state := range []string{"STATUS=waiting for post-start", "READY=1\nSTATUS=ready", "WATCHDOG=1", "STOPPING=1\nSTATUS=stopping: TERM"} {
				if err := s.Send(state); err != nil {
					t.Fatalf("Send(%q): %v", state, err)
				}
				if got := recvString(t, fd); got != state {
					t.Fatalf("manager got %q, want %q", got, state)
				}
			}
		})
	}
}

// TestSenderNeverBlocks: a manager that never reads. Send must come back
// at once with ErrDropped once the queue is full, and count the drops.
func TestSenderNeverBlocks(t *testing.T) {
	name := filepath.Join(t.TempDir(), "notify")
	manager(t, name)
	s, err := FromEnv(lookupOf(EnvSocket, name))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var slowest time.Duration
	start := time.Now()
	drops := 0
	for i := 0; i < 5000 && drops < 100; i++ {
		t0 := time.Now()
		err := s.Send("WATCHDOG=1")
		slowest = max(slowest, time.Since(t0))
		switch {
		case errors.Is(err, ErrDropped):
			drops++
		case err != nil:
			t.Fatalf("Send: %v", err)
		}
	}
	if drops < 100 || s.Dropped() != uint64(drops) {
		t.Fatalf("drops %d, Dropped() %d: the queue never filled", drops, s.Dropped())
	}
	t.Logf("a full queue: %d drops in %v, slowest Send %v", drops, time.Since(start), slowest)
	if slowest > 2*time.Second {
		t.Fatalf("a Send took %v: it blocked", slowest) // a hang bound, not a timing
	}
}

func TestSenderManagerGone(t *testing.T) {
	s, err := FromEnv(lookupOf(EnvSocket, filepath.Join(t.TempDir(), "none")))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Send("READY=1"); err == nil || errors.Is(err, ErrDropped) {
		t.Fatalf("Send to no socket: %v, want an error naming the cause", err)
	}
	var nilSender *Sender
	if err := nilSender.Send("READY=1"); err != nil {
		t.Fatalf("a nil Sender must send nothing: %v", err)
	}
}

// BenchmarkSend is the cost of one Send to a manager that keeps up.
func BenchmarkSend(b *testing.B) {
	name := filepath.Join(b.TempDir(), "notify")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: name}); err != nil {
		b.Fatal(err)
	}
	s, err := FromEnv(lookupOf(EnvSocket, name))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	buf := make([]byte, 64)
	for b.Loop() {
		if err := s.Send("WATCHDOG=1"); err != nil {
			b.Fatal(err)
		}
		if _, _, err := unix.Recvfrom(fd, buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}
