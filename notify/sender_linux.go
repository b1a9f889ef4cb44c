package notify

import (
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// ErrDropped is Send's answer when the manager's queue is full (EAGAIN):
// the state is lost, not delayed. The caller counts and logs it; a later
// state (the next WATCHDOG=1, STOPPING=1) is sent as usual.
var ErrDropped = errors.New("notify: the manager's socket is full, message dropped")

// Sender sends tend's own state to the manager named by NOTIFY_SOCKET.
// Its methods are safe to call from any goroutine.
type Sender struct {
	fd      int
	addr    *unix.SockaddrUnix
	name    string
	dropped atomic.Uint64
}

// FromEnv returns a Sender for NOTIFY_SOCKET, or nil and nil when it is
// unset (nothing waits on tend). A set but unusable value (relative path,
// vsock:, too long) is an error: the manager waits in vain, so the caller
// logs it at warning. The watchdog is read apart (WatchdogFromEnv).
func FromEnv(lookup func(string) (string, bool)) (*Sender, error) {
	v, ok := lookup(EnvSocket)
	if !ok {
		return nil, nil
	}
	name, err := socketName(v)
	if err != nil {
		return nil, err
	}
	// One unconnected socket, every datagram addressed by sendto: a manager
	// that re-creates its socket (podman's conmon, systemd re-exec) is
	// reached again by the next send, as sd_notify's socket-per-call is,
	// without the socket() and close() per call. Non-blocking, so a manager
	// that does not read costs EAGAIN, not a held loop.
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("notify: socket: %w", err)
	}
	return &Sender{fd: fd, addr: &unix.SockaddrUnix{Name: name}, name: v}, nil
}

// Addr is NOTIFY_SOCKET as tend found it, for the log.
func (s *Sender) Addr() string { return s.name }

// Send writes state (for example "READY=1\nSTATUS=waiting for /readyz") as
// one datagram. It never blocks: ErrDropped when the manager's queue is
// full, another error when the manager is gone (ECONNREFUSED, ENOENT) or
// the message too long. A nil Sender sends nothing, so the loop needs no
// "if NOTIFY_SOCKET" of its own.
func (s *Sender) Send(state string) error {
	if s == nil {
		return nil
	}
	for {
		err := unix.Sendto(s.fd, []byte(state), unix.MSG_NOSIGNAL|unix.MSG_DONTWAIT, s.addr)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			s.dropped.Add(1)
			return ErrDropped
		}
		return fmt.Errorf("notify: sendto %s: %w", s.name, err)
	}
}

// Dropped counts the sends lost to a full queue.
func (s *Sender) Dropped() uint64 {
	if s == nil {
		return 0
	}
	return s.dropped.Load()
}

// Close releases the socket.
func (s *Sender) Close() error {
	if s == nil {
		return nil
	}
	return unix.Close(s.fd)
}
