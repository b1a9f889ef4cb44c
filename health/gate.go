package health

import (
	"errors"
	"io"
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// gatedConn makes a connection's system calls one at a time across the
// whole server: each read and write takes gate for the length of
// the system call only, never while it waits for the socket to be ready
// (that wait is the runtime's poller, which holds no thread). A goroutine
// in a system call can hold an OS thread, and tend creates every thread it
// will need before the app starts (tend's thread/thread_linux.go): without the
// gate, the threads the health server needs would grow with its open
// connections.
type gatedConn struct {
	net.Conn
	rc   syscall.RawConn
	gate *sync.Mutex
}

// gated wraps c, or returns it as it is when it has no file descriptor to
// gate (which a *net.TCPConn always has).
func gated(c net.Conn, gate *sync.Mutex) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &gatedConn{Conn: c, rc: rc, gate: gate}
}

// Read reads through the runtime's poller, so that deadlines apply.
func (c *gatedConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.io(c.rc.Read, func(fd int) (int, error) { return unix.Read(fd, p) })
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

// Write writes all of p, waiting for the socket through the poller.
func (c *gatedConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := c.io(c.rc.Write, func(fd int) (int, error) { return unix.Write(fd, p[done:]) })
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// Close is not gated. The poller's Close waits for every operation in
// flight on the descriptor to return, and one of them may be waiting for
// the gate: closing under it deadlocked the accept loop when it evicted an
// idle connection (then every /livez hung). close(2) on a socket without
// SO_LINGER does not block, so it holds no thread for long.
func (c *gatedConn) Close() error { return c.Conn.Close() }

// io runs op on the descriptor under the gate until it does not return
// EAGAIN, waiting for readiness in between through wait (RawConn's Read or
// Write, which honour the deadlines).
func (c *gatedConn) io(wait func(func(uintptr) bool) error, op func(fd int) (int, error)) (int, error) {
	var n int
	var err error
	werr := wait(func(fd uintptr) bool {
		c.gate.Lock()
		for {
			n, err = op(int(fd))
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		c.gate.Unlock()
		return !errors.Is(err, unix.EAGAIN)
	})
	if n < 0 {
		n = 0
	}
	if werr != nil {
		return 0, werr
	}
	return n, err
}

// CloseWrite half-closes, as *net.TCPConn does: the lingering close sends
// its FIN this way, and without it a client waits out the linger for EOF.
func (c *gatedConn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.New("no half-close on this connection")
	}
	c.gate.Lock()
	defer c.gate.Unlock()
	return cw.CloseWrite()
}
