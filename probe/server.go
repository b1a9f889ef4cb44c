package probe

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits that keep slow or idle clients from holding the server: the whole
// request head must arrive within headerTimeout and fit in maxHeader bytes,
// and at most maxConns connections are served at once.
const (
	headerTimeout = 5 * time.Second
	writeTimeout  = 5 * time.Second
	maxHeader     = 4096
	maxConns      = 4096
	// staleAfter is how old a snapshot may be before /livez reports the
	// event loop as stuck; the loop republishes every second.
	staleAfter = 10 * time.Second
	// Accept errors (ENOBUFS, ENOMEM, EMFILE, ECONNABORTED...) are retried
	// after a pause that doubles from minBackoff to maxBackoff: a transient
	// one must not stop the health endpoint, a lasting one must not spin.
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
)

// ParseAddr checks a HOST:PORT health address before anything starts.
func ParseAddr(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("health address %q: want HOST:PORT", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("health address %q: bad port %q", s, port)
	}
	if host != "" && net.ParseIP(host) == nil && strings.ContainsAny(host, " /\\%") {
		return fmt.Errorf("health address %q: bad host %q", s, host)
	}
	return nil
}

// Server is the health endpoint.
type Server struct {
	// ln is a net.Listener so that tests can inject accept errors.
	ln     net.Listener
	status atomic.Pointer[Status]
	conns  chan struct{} // a slot per open connection
	closed atomic.Bool
	done   chan struct{} // closed by Close, to end an accept back-off early
	procs  *procCache    // the namespace figures of /metrics, walked once a second
}

// Listen binds addr. It is called before the app starts, so a bad or busy
// address stops tend before anything runs.
func Listen(addr string) (*Server, error) {
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
	return &Server{ln: ln, conns: make(chan struct{}, maxConns), procs: newProcCache(), done: make(chan struct{})}, nil
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
		select {
		case s.conns <- struct{}{}:
		default:
			_ = nc.Close() // over the connection limit: shed, never queue
			continue
		}
		go s.serveConn(nc)
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
