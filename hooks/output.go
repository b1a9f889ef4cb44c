package hooks

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// A command's stdout and stderr go to pipes that tend itself reads, never
// straight to tend's own stdout: an open but unread stdout (a stuck log
// shipper) would otherwise block a probe writing 100 kB until it timed out,
// and tend would stop a healthy app. The read ends come from os.Pipe, so
// they are non-blocking and wait in the runtime's netpoller: reading costs
// no OS thread (see lifecycle's thread budget), and a read deadline ends
// the reading at once, whoever still holds the write end.

// sink takes what a pipe's reader reads. take must not block and must not
// keep p, which the reader reuses.
type sink interface{ take(p []byte) }

// lastRead bounds the final read of a pipe once its command is over. What
// the command wrote before it exited is in the pipe by then, at most the
// pipe's capacity (64 KiB by default); the bound only stops a grandchild
// that keeps writing from holding the caller.
const lastRead = 1 << 20

// pipe is one output stream of a command: the write end it is given, and
// the read end tend keeps.
type pipe struct {
	r, w *os.File
	to   sink
	done chan struct{} // closed when read returns
	eof  bool          // read saw EOF; valid once done is closed
}

func newPipe(to sink) (*pipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &pipe{r: r, w: w, to: to}, nil
}

// start begins reading. Call it after the command has started and the
// write end has been closed in tend.
func (p *pipe) start() {
	p.done = make(chan struct{})
	go p.read()
}

func (p *pipe) read() {
	defer close(p.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.r.Read(buf)
		if n > 0 {
			p.to.take(buf[:n])
		}
		if err != nil {
			p.eof = err == io.EOF
			return
		}
	}
}

// finish ends the reading without waiting for anyone: it stops the reader,
// then takes what is already in the pipe, and reports whether no writer is
// left (EOF). Everything the command wrote before it exited is taken;
// whatever a grandchild that still holds the pipe writes later is not.
func (p *pipe) finish() (eof bool) {
	// A deadline in the past wakes a reader parked in the netpoller.
	if err := p.r.SetReadDeadline(time.Now()); err != nil {
		// Not pollable (cannot happen with os.Pipe on Linux): leave the
		// reader to whatever it is doing rather than wait for it.
		return false
	}
	<-p.done // bounded: the reader's next read fails at once
	if p.eof {
		return true
	}
	rc, err := p.r.SyscallConn()
	if err != nil {
		return false
	}
	// Control, not Read: Read checks the deadline first and would refuse.
	// The fd is non-blocking, so each read returns what is there or EAGAIN.
	_ = rc.Control(func(fd uintptr) { // its only error is a closed file, which p.r is not
		buf := make([]byte, 32<<10)
		for total := 0; total < lastRead; {
			n, err := unix.Read(int(fd), buf)
			switch {
			case n > 0:
				p.to.take(buf[:n])
				total += n
			case errors.Is(err, unix.EINTR):
			default:
				eof = n == 0 && err == nil
				return
			}
		}
	})
	return eof
}

// follow keeps reading after finish, until no writer is left, then closes
// the read end. It is for hooks: a daemon that a hook started keeps its
// output in the container log, and does not get EPIPE.
func (p *pipe) follow() {
	_ = p.r.SetReadDeadline(time.Time{}) // pollable: finish set one
	p.start()
	go func() {
		<-p.done
		_ = p.r.Close() // the read end; nothing to report
	}()
}

// Output is what an exec probe wrote to stdout and stderr, kept as the
// kubelet keeps it: the first MaxOutput bytes (pkg/probe/exec's
// maxReadLength, through pkg/kubelet/util/ioutils.LimitWriter). The rest is
// read and counted, never kept, so a probe never blocks on a full pipe.
type Output struct {
	Head  []byte // at most MaxOutput bytes
	Total int64  // every byte read, kept or not
}

// MaxOutput is the kubelet's bound on an exec probe's output: 10 KiB.
const MaxOutput = 10 << 10

func (o *Output) take(p []byte) {
	o.Total += int64(len(p))
	if room := MaxOutput - len(o.Head); room > 0 {
		o.Head = append(o.Head, p[:min(room, len(p))]...)
	}
}

// discard is the sink for hook output when there is no Relay.
type discard struct{}

func (discard) take([]byte) {}
