package health

import (
	"container/list"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/target"
)

// Limits that keep slow or idle clients from holding the server: the whole
// request head must arrive within headerTimeout and fit in maxHeader bytes,
// and at most Server.maxConns connections are open at once.
const (
	headerTimeout = 5 * time.Second
	writeTimeout  = 5 * time.Second
	maxHeader     = 4096
	// maxConns is the most connections served at once; connCap lowers it
	// to fit the open-files limit. Each one costs tend a goroutine stack
	// and buffers, about 7.5 KB: at the old cap of 4,096, 5,000 slowloris
	// connections took tend to a VmHWM of 39 MB, and the OOM killer ranks
	// PID 1 by its resident pages. 128 is far above what a pod needs (the
	// kubelet's probes open one connection each per period and close it
	// in milliseconds; a scrape or a HEALTHCHECK is one more), and a flood
	// past it evicts the oldest idle connection (conn.go), so probes still
	// answer while tend's memory stays within about 1 MB of it.
	maxConns = 128
	// fdReserve is how many fds connections must leave to the rest of
	// tend: hooks' and probes' pipes, the app's stdio, the listener.
	fdReserve = 64
	// minConns is the floor of the cap, so that a tiny limit still leaves
	// room for a kubelet's probes next to a few idle clients.
	minConns = 16
	// staleAfter is how old a snapshot may be before /livez reports the
	// event loop as stuck; the loop republishes every second.
	staleAfter = 10 * time.Second
	// Accept errors (ENOBUFS, ENOMEM, EMFILE, ECONNABORTED...) are retried
	// after a pause that doubles from minBackoff to maxBackoff: a transient
	// one must not stop the health endpoint, a lasting one must not spin.
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
)

// ParseAddr checks a HOST:PORT health address before anything starts, as
// target.CheckAddr checks every address tend is given; port 0 lets the
// kernel pick.
func ParseAddr(s string) error {
	var pe *target.PortError
	switch err := target.CheckAddr(s, 0); {
	case err == nil:
		return nil
	case errors.Is(err, target.ErrNotHostPort):
		return fmt.Errorf("health address %s: want HOST:PORT", excerpt.Quote(s))
	case errors.As(err, &pe):
		return fmt.Errorf("health address %s: bad port %s", excerpt.Quote(s), excerpt.Quote(pe.Port))
	}
	host, _, _ := net.SplitHostPort(s) // CheckAddr split it
	return fmt.Errorf("health address %s: bad host %s", excerpt.Quote(s), excerpt.Quote(host))
}

// Server is the health endpoint.
type Server struct {
	// gate admits one connection's system call, or one scrape's reads of
	// /proc, at a time: a goroutine in a system call can hold an OS
	// thread, and tend creates every thread it may need before the app
	// starts (thread/thread_linux.go), so their number must not grow
	// with the number of connections. See gatedConn.
	gate sync.Mutex
	// metrics renders /metrics once for a burst of scrapes, one
	// rendering at a time: /proc reads hold a thread. Not under gate,
	// which would hold every connection's I/O, /livez's too, for a whole
	// walk of /proc.
	metrics metricsCache
	// ln is a net.Listener so that tests can inject accept errors.
	ln     net.Listener
	status atomic.Pointer[Status]
	procs  *procCache
	// version is tend's version, which tend_build_info shows.
	version string
	closed  atomic.Bool
	done    chan struct{} // closed by Close, to end an accept back-off early

	// maxConns is the connection cap; a field so tests can make it small.
	maxConns int
	mu       sync.Mutex // guards open and idle
	open     int        // connections admitted and not yet closed
	peak     int        // the most open since the last trim request (trim.go)
	// idle holds the *conn that may be evicted, oldest first: those still
	// reading their head, and those already answered and draining.
	idle list.List
	// trimReq asks trimmer to give memory back: a flood just ended.
	trimReq chan struct{}
}

// Listen binds addr. It is called before the app starts, so a bad or busy
// address stops tend before anything runs. version is tend's, for
// /metrics' tend_build_info.
func Listen(addr, version string) (*Server, error) {
	if err := ParseAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("health address %s is already in use", addr)
		}
		return nil, fmt.Errorf("health address %s: %v", addr, err)
	}
	var lim syscall.Rlimit
	soft := uint64(maxConns + fdReserve) // unknown limit: assume the cap fits
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil {
		soft = lim.Cur
	}
	s := newServer(ln, connCap(soft))
	s.version = version
	return s, nil
}

func newServer(ln net.Listener, maxConns int) *Server {
	return &Server{ln: ln, procs: newProcCache(), done: make(chan struct{}), maxConns: maxConns, trimReq: make(chan struct{}, 1)}
}

// connCap is the connection cap for an open-files soft limit: at most
// maxConns, fdReserve below the limit so that idle clients cannot starve
// hooks and probes of fds, and never below minConns.
func connCap(soft uint64) int {
	n := uint64(maxConns)
	if soft < n+fdReserve {
		n = 0
		if soft > fdReserve {
			n = soft - fdReserve
		}
	}
	return int(max(n, minConns))
}

// Addr is the bound address, useful with port 0.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Publish makes st the snapshot that handlers read. st must not change
// afterwards.
func (s *Server) Publish(st *Status) { s.status.Store(st) }

// Serve accepts connections until Close, and returns nil then. Any other
// accept error is retried with back-off: returning would leave the socket
// bound but unserved, and every probe would hang until kubelet restarts a
// healthy pod. Run it in a goroutine.
func (s *Server) Serve() error {
	go s.trimmer()
	var delay time.Duration
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if s.closed.Load() {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err // closed behind Close's back: nothing left to retry
			}
			delay = nextBackoff(delay)
			if !s.pause(delay) {
				return nil
			}
			continue
		}
		delay = 0
		c, victim := s.admit(gated(nc, &s.gate))
		if victim != nil {
			_ = victim.Close() // evicted: its reader sees the error and releases it
			// Let the victim's goroutine run and exit before the next
			// accept: Close only makes it runnable, and an accept loop
			// fed by a flood may not block for milliseconds, while
			// every evicted goroutine it leaves behind keeps its stack.
			runtime.Gosched()
		}
		if c == nil {
			_ = nc.Close() // every connection is mid-answer: shed this one
			continue
		}
		go s.serveConn(c)
	}
}

// nextBackoff doubles d within [minBackoff, maxBackoff].
func nextBackoff(d time.Duration) time.Duration {
	return min(max(2*d, minBackoff), maxBackoff)
}

// pause waits d, or until Close; it reports whether to go on.
func (s *Server) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
		return false
	}
}

// Close stops accepting. Requests in flight finish on their own, within
// their deadlines; tend does not wait for them to exit.
func (s *Server) Close() error {
	if s.closed.CompareAndSwap(false, true) {
		close(s.done)
	}
	return s.ln.Close()
}
