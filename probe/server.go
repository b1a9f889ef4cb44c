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
	ln     net.Listener
	status atomic.Pointer[Status]
	conns  chan struct{} // a slot per open connection
	closed atomic.Bool
	procs  *procCache // the namespace figures of /metrics, walked once a second
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
	return &Server{ln: ln, conns: make(chan struct{}, maxConns), procs: newProcCache()}, nil
}

// Addr is the bound address, useful with port 0.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Publish makes st the snapshot that handlers read. st must not change
// afterwards.
func (s *Server) Publish(st *Status) { s.status.Store(st) }

// Serve accepts connections until Close. Run it in a goroutine.
func (s *Server) Serve() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if s.closed.Load() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				time.Sleep(10 * time.Millisecond) // out of fds: back off rather than spin
				continue
			}
			return err
		}
		select {
		case s.conns <- struct{}{}:
		default:
			_ = c.Close() // over the connection limit: shed, never queue
			continue
		}
		go s.serveConn(c)
	}
}

// Close stops accepting. Requests in flight finish on their own, within
// their deadlines; tend does not wait for them to exit.
func (s *Server) Close() error {
	s.closed.Store(true)
	return s.ln.Close()
}
