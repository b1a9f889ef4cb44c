package probe

import (
	"errors"
	"io"
	"net"
	"time"
)

// After the answer, the server drains what the client still sends before
// closing: closing with unread bytes makes the kernel send a reset, which
// can destroy the answer in the client's buffer (a 405 to a POST with a
// body, the first answer to pipelined requests). The drain is bounded in
// bytes and time, as net/http's closeWriteAndWait is.
const (
	lingerBytes   = 64 << 10
	lingerTimeout = 500 * time.Millisecond
)

// serveConn answers one request per connection. The whole head must arrive
// before the deadline, so a slowloris client is cut off however it
// trickles.
func (s *Server) serveConn(c net.Conn) {
	defer func() { <-s.conns }()
	defer func() { _ = c.Close() }()                 // nothing to report to
	_ = c.SetDeadline(time.Now().Add(headerTimeout)) // fails only on a closed conn, which the read reports
	method, target, err := parseRequestHead(c, maxHeader)
	var resp []byte
	switch {
	case err == nil:
		resp = s.answer(method, target)
	case errors.Is(err, errBadRequest):
		resp = errorResponse(400, "bad request\n")
	case errors.Is(err, errHeadTooLarge):
		resp = errorResponse(431, "request head too large\n")
	default:
		return // timed out, reset or closed: nobody is listening for an answer
	}
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout)) // as above
	if _, err := c.Write(resp); err != nil {
		return // a client that went away needs no answer
	}
	linger(c)
}

// linger half-closes c, so the client sees the end of the answer at once,
// then reads and drops what it still sends until it closes, lingerBytes
// have come, or lingerTimeout passes; the caller closes c.
func linger(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite() // on failure the close that follows ends the answer
	}
	_ = c.SetReadDeadline(time.Now().Add(lingerTimeout)) // fails only on a closed conn, which the read reports
	_, _ = io.CopyN(io.Discard, c, lingerBytes)          // every outcome ends in the same close
}
