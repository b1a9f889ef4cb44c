package health

import (
	"container/list"
	"errors"
	"net"
	"time"

	"github.com/tend-init/tend/http1"
)

// After the answer, the server drains what the client still sends before
// closing: closing with unread bytes makes the kernel send a reset, which
// can destroy the answer in the client's buffer (a 405 to a POST with a
// body, the first answer to pipelined requests). The drain is bounded in
// bytes and time, as net/http's closeWriteAndWait is.
const (
	lingerBytes   = 64 << 10
	lingerTimeout = 500 * time.Millisecond
	lingerBuf     = 512
)

// conn is one accepted connection and its place in Server.idle.
type conn struct {
	net.Conn
	elem    *list.Element // in Server.idle while evictable, else nil
	evicted bool          // closed by admit to make room; no longer counted
}

// admit counts nc in. At the cap it evicts the oldest idle connection,
// returned as victim for the caller to close outside the lock: refusing
// the newest instead would let a few thousand idle sockets fail every
// kubelet probe, and kubelet would restart a healthy pod. c is nil when no
// connection can be evicted, all being mid-answer for a few milliseconds.
func (s *Server) admit(nc net.Conn) (c, victim *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.maxConns {
		front := s.idle.Front()
		if front == nil {
			return nil, nil
		}
		victim = s.idle.Remove(front).(*conn)
		victim.elem, victim.evicted = nil, true
		s.open--
	}
	c = &conn{Conn: nc}
	c.elem = s.idle.PushBack(c)
	s.open++
	s.noteOpen()
	return c, victim
}

// setIdle makes c evictable or not. It reports false once c was evicted, so
// that its goroutine stops working for a connection that is gone.
func (s *Server) setIdle(c *conn, idle bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.evicted:
		return false
	case idle && c.elem == nil:
		c.elem = s.idle.PushBack(c)
	case !idle && c.elem != nil:
		s.idle.Remove(c.elem)
		c.elem = nil
	}
	return true
}

// release closes c and gives back its place, unless eviction already did.
func (s *Server) release(c *conn) {
	s.mu.Lock()
	if c.elem != nil {
		s.idle.Remove(c.elem)
		c.elem = nil
	}
	if !c.evicted {
		s.open--
		s.noteOpen()
	}
	s.mu.Unlock()
	_ = c.Close() // already closed if evicted; otherwise nothing to report to
}

// serveConn answers one request per connection. The whole head must arrive
// before the deadline, so a slowloris client is cut off however it
// trickles, and it stays evictable until its head is complete.
func (s *Server) serveConn(c *conn) {
	defer s.release(c)
	_ = c.SetDeadline(time.Now().Add(headerTimeout)) // fails only on a closed conn, which the read reports
	method, target, err := http1.ParseRequestHead(c, maxHeader)
	if !s.setIdle(c, false) {
		return
	}
	var resp []byte
	switch {
	case err == nil:
		resp = s.answer(method, target)
	case errors.Is(err, http1.ErrBadRequest):
		resp = errorResponse(400, "bad request\n")
	case errors.Is(err, http1.ErrHeadTooLarge):
		resp = errorResponse(431, "request head too large\n")
	default:
		return // timed out, reset or closed: nobody is listening for an answer
	}
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout)) // as above
	if _, err := c.Write(resp); err != nil {
		return // a client that went away needs no answer
	}
	if s.setIdle(c, true) {
		s.linger(c)
	}
}

// linger half-closes c, so the client sees the end of the answer at once,
// then reads and drops what it still sends until it closes, lingerBytes
// have come, or lingerTimeout passes; the caller closes c.
func (s *Server) linger(c *conn) {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite() // on failure the close that follows ends the answer
	}
	_ = c.SetReadDeadline(time.Now().Add(lingerTimeout)) // fails only on a closed conn, which the read reports
	// A small buffer of its own, not io.Discard's pooled 8 KiB: each
	// lingering connection holds its buffer while it waits, and a burst
	// of answers nobody reads lingers by the thousand.
	buf := make([]byte, lingerBuf)
	for n := 0; n < lingerBytes; {
		m, err := c.Read(buf)
		n += m
		if err != nil {
			return // every outcome ends in the same close
		}
	}
}
