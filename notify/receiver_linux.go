package notify

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Options configure Listen. The zero value is usable except for Allow.
type Options struct {
	// Parent is where Listen creates its directory; "" means
	// os.TempDir(). The path must leave room for the socket's name in
	// sun_path (107 bytes in all).
	Parent string

	// Allow says whether a sender's pid (in tend's pid namespace, never 0)
	// may notify: NotifyAccess=all in a container is any process but tend
	// itself. Nil refuses every sender. It runs on the reader goroutine
	// for each datagram, so it must be cheap and must not block.
	Allow func(pid int) bool

	// Queue is the channel's capacity; 0 means DefaultQueue.
	Queue int

	// Rate and Burst are the token bucket over accepted datagrams: Burst
	// at once, then Rate a second; 0 means DefaultRate, DefaultBurst.
	Rate  float64
	Burst int
}

// The defaults of Options. An app sends a handful of notifications at
// start and one WATCHDOG=1 every few seconds; these leave it a hundred
// times that, and bound what a flood costs the loop.
const (
	DefaultQueue = 64
	DefaultRate  = 50 // datagrams a second
	DefaultBurst = 100
)

// socketName is the socket's name inside Listen's directory.
const sockName = "notify"

// maxFds is SCM_MAX_FD: the most descriptors one datagram can carry, so
// that the control buffer holds them all and every one is closed.
const maxFds = 253

// Receiver is tend's own NOTIFY_SOCKET for the app.
type Receiver struct {
	// C delivers accepted, parsed messages. It is closed when the reader
	// stops: after Close, or on a socket error (Err).
	C <-chan Message

	c      chan Message
	dir    string
	path   string
	conn   *net.UnixConn
	allow  func(int) bool
	bucket *bucket

	received atomic.Uint64
	counts   [nDrops]atomic.Uint64
	errMu    sync.Mutex
	err      error
	done     chan struct{}
	closing  sync.Once
}

// Listen creates a directory under o.Parent (mode 0711), binds a datagram
// socket in it (mode 0666, with SO_PASSCRED) and starts the reader. See
// the package comment for why those modes.
func Listen(o Options) (*Receiver, error) {
	if o.Parent == "" {
		o.Parent = os.TempDir()
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRate
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	// MkdirTemp: a fresh name, created with O_EXCL semantics and 0700,
	// so nothing the app placed beforehand is followed or reused.
	dir, err := os.MkdirTemp(o.Parent, "tend-notify-")
	if err != nil {
		return nil, fmt.Errorf("notify: %w", err)
	}
	r, err := listenIn(dir, o)
	if err != nil {
		_ = os.RemoveAll(dir) // best effort; the error that matters is err
		return nil, err
	}
	return r, nil
}

func listenIn(dir string, o Options) (*Receiver, error) {
	path := filepath.Join(dir, sockName)
	if len(path) >= maxSunPath {
		return nil, fmt.Errorf("notify: socket path %s is longer than %d bytes", path, maxSunPath-1)
	}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return nil, fmt.Errorf("notify: %w", err)
	}
	if err := passCred(conn); err != nil {
		_ = conn.Close() // the socket is useless without credentials
		return nil, err
	}
	// The directory is still 0700 and tend's alone, so nothing can have
	// replaced the socket between bind and these chmods.
	for _, c := range []struct {
		name string
		mode os.FileMode
	}{{path, 0o666}, {dir, 0o711}} {
		if err := os.Chmod(c.name, c.mode); err != nil {
			_ = conn.Close() // failing Listen as a whole
			return nil, fmt.Errorf("notify: %w", err)
		}
	}
	c := make(chan Message, o.Queue)
	r := &Receiver{
		C: c, c: c, dir: dir, path: path, conn: conn, allow: o.Allow,
		bucket: newBucket(o.Rate, o.Burst, time.Now()),
		done:   make(chan struct{}),
	}
	go r.read()
	return r, nil
}

func passCred(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PASSCRED, 1)
	}); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("notify: setsockopt SO_PASSCRED: %w", serr)
	}
	return nil
}

// Path is the socket's path; Env is the app's NOTIFY_SOCKET=... entry.
func (r *Receiver) Path() string { return r.path }

// Env is the NOTIFY_SOCKET entry to add to the app's environment (after
// StripEnv).
func (r *Receiver) Env() string { return EnvSocket + "=" + r.path }

// Received counts datagrams read; Count(d) those dropped for reason d, and
// Count(Accepted) those delivered on C.
func (r *Receiver) Received() uint64 { return r.received.Load() }

// Count is how many datagrams ended as d.
func (r *Receiver) Count(d Drop) uint64 {
	if d < 0 || d >= nDrops {
		return 0
	}
	return r.counts[d].Load()
}

// Err is the socket error that stopped the reader, nil after Close.
func (r *Receiver) Err() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

// Close stops the reader, waits for it, and removes the socket and its
// directory. C is closed once the reader has stopped.
func (r *Receiver) Close() error {
	var err error
	r.closing.Do(func() {
		err = r.conn.Close()
		<-r.done
		if rerr := os.RemoveAll(r.dir); err == nil {
			err = rerr
		}
	})
	return err
}

// read is the reader goroutine: one recvmsg at a time into buffers it
// reuses, so a flood costs CPU on this goroutine and no memory.
func (r *Receiver) read() {
	defer close(r.done)
	defer close(r.c)
	buf := make([]byte, MaxDatagram+1) // one byte more: a longer datagram shows as n > MaxDatagram
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred)+unix.CmsgSpace(4*maxFds))
	for {
		n, oobn, flags, _, err := r.conn.ReadMsgUnix(buf, oob)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				// systemd too stops reading on a real error rather than
				// spin on a socket it cannot read (manager.c).
				r.errMu.Lock()
				r.err = fmt.Errorf("notify: recvmsg: %w", err)
				r.errMu.Unlock()
			}
			return
		}
		r.received.Add(1)
		d, m := r.judge(buf[:n], n, flags, oob[:oobn])
		if d == Accepted {
			select {
			case r.c <- m:
			default:
				d = QueueFull
			}
		}
		r.counts[d].Add(1)
	}
}

// judge applies manager_dispatch_notify_fd's checks in its order (fds,
// credentials, size, NUL), then the sender check, the rate and the parse.
func (r *Receiver) judge(b []byte, n, flags int, oob []byte) (Drop, Message) {
	cred, fds := control(oob)
	if fds {
		return WithFds, Message{}
	}
	if flags&unix.MSG_CTRUNC != 0 {
		return Truncated, Message{}
	}
	if cred == nil || cred.Pid <= 0 {
		return NoCreds, Message{}
	}
	if d := Check(b, n, flags&unix.MSG_TRUNC != 0); d != Accepted {
		return d, Message{}
	}
	if r.allow == nil || !r.allow(int(cred.Pid)) {
		return Denied, Message{}
	}
	if !r.bucket.take(time.Now()) {
		return RateLimited, Message{}
	}
	m := Parse(b)
	m.PID, m.UID = int(cred.Pid), int(cred.Uid)
	return Accepted, m
}

// control reads the credentials and closes every descriptor attached
// (received close-on-exec: Go's ReadMsgUnix passes MSG_CMSG_CLOEXEC).
func control(oob []byte) (*unix.Ucred, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, false // a malformed control block carries no usable credentials
	}
	var cred *unix.Ucred
	fds := false
	for i := range msgs {
		h := msgs[i].Header
		switch {
		case h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_RIGHTS:
			fds = true
			rights, err := unix.ParseUnixRights(&msgs[i])
			if err != nil {
				continue // nothing parsed, nothing to close
			}
			for _, fd := range rights {
				_ = unix.Close(fd) // the descriptor is the sender's gift, refused; nothing to do if close fails
			}
		case h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_CREDENTIALS:
			if c, err := unix.ParseUnixCredentials(&msgs[i]); err == nil {
				cred = c
			}
		}
	}
	return cred, fds
}
