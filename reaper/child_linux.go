package reaper

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Child is a process started through the reaper.
type Child struct {
	Pid int
	r   *Reaper
	// pidfd is the child's pidfd from clone(CLONE_PIDFD), or -1 where
	// the kernel or a seccomp profile refused it, and after Release.
	// Guarded by r.mu.
	pidfd  int
	done   chan Exit
	reaped atomic.Bool
}

// Reaped reports whether the reaper has collected the child. From then on
// its pid, and a process group named after it, may belong to someone else,
// so nothing may be sent to -Pid any more.
func (c *Child) Reaped() bool { return c.reaped.Load() }

// Done delivers the child's exit exactly once, after the reaper collects it.
func (c *Child) Done() <-chan Exit { return c.done }

// HasPidfd reports whether signals go through a pidfd (false where pidfds
// are refused, and after Release).
func (c *Child) HasPidfd() bool {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.pidfd >= 0
}

// Signal sends sig to the child. It holds the reaper's lock and sends
// nothing once the child is reaped: until then the pid is still the
// child's own (a zombie keeps it), so even where pidfds are refused (an
// old kernel, or a seccomp profile that answers ENOSYS or EPERM) kill(2)
// cannot reach another process. With a pidfd the signal goes through
// pidfd_send_signal; where that call itself is refused, through kill(2),
// which the lock makes just as safe. A child that is already gone counts as
// success: the caller's intent is moot.
func (c *Child) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("reaper: unsupported signal %v", sig)
	}
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if c.reaped.Load() {
		return nil
	}
	if c.pidfd >= 0 {
		err := pidfdSendSignal(c.pidfd, s)
		switch {
		case err == 0 || err == unix.ESRCH:
			return nil
		case err != unix.ENOSYS && err != unix.EPERM:
			return fmt.Errorf("pidfd_send_signal(%d, %d): %w", c.Pid, s, err)
		}
		// Refused: fall back to the pid, safe under the lock.
	}
	if err := rawKill(c.Pid, s); err != 0 && err != unix.ESRCH {
		return fmt.Errorf("kill(%d, %d): %w", c.Pid, s, err)
	}
	return nil
}

// SignalGroup sends sig to the process group that the child leads. It holds
// the reaper's lock and sends nothing once the child is reaped: only an
// unreaped leader guarantees that its pid, and so the group's id, has not
// been reused. A group that is already empty counts as success.
func (c *Child) SignalGroup(sig unix.Signal) error {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if c.reaped.Load() {
		return nil
	}
	if err := rawKill(-c.Pid, sig); err != 0 && err != unix.ESRCH {
		return fmt.Errorf("kill(-%d, %d): %w", c.Pid, sig, err)
	}
	return nil
}

// Release closes the child's pidfd. Call it once Done has delivered; a
// second call does nothing.
func (c *Child) Release() {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if c.pidfd >= 0 {
		// Raw: closing a pidfd cannot block. Its only failure,
		// EBADF, cannot happen while the lock guards pidfd.
		rawClose(c.pidfd)
		c.pidfd = -1
	}
}

// pidfdSendSignal is pidfd_send_signal(fd, sig, NULL, 0); tests replace it
// to play a seccomp profile that refuses it.
var pidfdSendSignal = sendViaPidfd

// sendViaPidfd is pidfd_send_signal as a raw system call; it cannot block.
func sendViaPidfd(fd int, sig syscall.Signal) unix.Errno {
	_, _, errno := unix.RawSyscall6(unix.SYS_PIDFD_SEND_SIGNAL, uintptr(fd), uintptr(sig), 0, 0, 0, 0)
	return errno
}

// rawKill is kill(2) as a raw system call: it never blocks, so, like
// wait4NoHang, it never makes the runtime hand the caller's P to another
// thread.
func rawKill(pid int, sig syscall.Signal) unix.Errno {
	_, _, errno := unix.RawSyscall(unix.SYS_KILL, uintptr(pid), uintptr(sig), 0)
	return errno
}

func unsafePointer(ws *unix.WaitStatus) unsafe.Pointer { return unsafe.Pointer(ws) }
