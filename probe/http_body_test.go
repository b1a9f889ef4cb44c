package probe

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/rawpeer"
)

// TestBodyCap: a 1 MiB body, in each framing, does not fail the probe, and
// the client hangs up after the cap: the server sends 64 KiB and then
// waits for the close, which a client without the cap would never send
// (it would wait for the rest until its timeout).
func TestBodyCap(t *testing.T) {
	for framing, head := range bodyHeads {
		closed := make(chan error, 1)
		addr := serveRaw(t, func(c net.Conn) {
			if _, err := io.WriteString(c, head+strings.Repeat(bodyChunk(framing, 1024), 64)); err != nil {
				closed <- err // the client hung up mid-write: early too
				return
			}
			_, err := c.Read(make([]byte, 1)) // EOF or a reset: the client closed
			closed <- err
			if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
			_, _ = io.WriteString(c, strings.Repeat(bodyChunk(framing, 1024), oneMiB/1024-64)) // to a closed peer
		})
		const timeout = 3 * time.Second
		start := time.Now()
		err := HTTP{URL: "http://" + addr + "/"}.Attempt(context.Background(), Deps{}, timeout)
		elapsed := time.Since(start)
		if err != nil {
			t.Errorf("%s: a 1 MiB body failed the probe: %v", framing, err)
		}
		if err := <-closed; err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s: the server never saw the client close after the cap: %v", framing, err)
		}
		if elapsed > timeout/2 {
			t.Errorf("%s: took %s", framing, elapsed)
		}
	}
}

// TestBodyFraming: the body ends where its framing says, so a server that
// ignores "Connection: close" costs no timeout; a body cut short or a
// framing net/http refuses fails, as in the kubelet.
func TestBodyFraming(t *testing.T) {
	for _, c := range []struct {
		name, resp string
		hold       bool   // keep the connection open after resp
		err        string // "" to pass
	}{
		{"length, held open", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", true, ""},
		{"chunked, held open", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n", true, ""},
		{"204, held open", "HTTP/1.1 204 No Content\r\n\r\n", true, ""},
		{"304, held open", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", true, ""},
		{"until close", "HTTP/1.1 200 OK\r\n\r\nhello", false, ""},
		{"HTTP/1.0 ignores TE", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnot chunked", false, ""},
		{"TE overrides CL", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true, ""},
		{"equal lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", true, ""},
		{"folded header", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 0\r\n\r\n", true, ""},
		{"until close, held open", "HTTP/1.1 200 OK\r\n\r\nhello", true, "timed out"},
		{"length cut short", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello", false, "unexpected EOF"},
		{"chunk cut short", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", false, "unexpected EOF"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, "bad chunk size"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, "bad Content-Length"},
		{"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok", false, "conflicting Content-Length"},
		{"gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false, "unsupported transfer encoding"},
		{"no headers end", "HTTP/1.1 200 OK\r\n", false, "unexpected EOF"},
		{"no colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", false, "malformed header line"},
		{"space before colon", "HTTP/1.1 200 OK\r\nX : y\r\n\r\n", false, "malformed header line"},
		{"control byte", "HTTP/1.1 200 OK\r\nX: a\x00b\r\n\r\n", false, "control byte"},
		{"fold first", "HTTP/1.1 200 OK\r\n x\r\n\r\n", false, "malformed header line"},
		// A head over 4 KiB is read to its end, then its framing holds.
		{"head over 4 KiB", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X: y\r\n", 1000) + "Content-Length: 2\r\n\r\nok", true, ""},
		{"500 head over 4 KiB", "HTTP/1.1 500 Oops\r\n" + strings.Repeat("X: y\r\n", 1000) + "Content-Length: 0\r\n\r\n", true, "status 500"},
	} {
		addr := serveRaw(t, func(conn net.Conn) {
			if _, err := io.WriteString(conn, c.resp); err != nil || !c.hold {
				return
			}
			_, _ = conn.Read(make([]byte, 1)) // until the client closes, or the deadline
		})
		timeout := 2 * time.Second
		if c.err == "timed out" {
			timeout = 200 * time.Millisecond
		}
		start := time.Now()
		err := HTTP{URL: "http://" + addr + "/"}.Attempt(context.Background(), Deps{}, timeout)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
		if d := time.Since(start); c.err != "timed out" && d > timeout/2 {
			t.Errorf("%s: took %s", c.name, d)
		}
	}
}

// The fake peer is internal/rawpeer's, shared with the other package's
// body tests.
const oneMiB = rawpeer.OneMiB

var bodyHeads = rawpeer.BodyHeads

func bodyChunk(framing string, n int) string { return rawpeer.Chunk(framing, n) }

func serveRaw(t *testing.T, serve func(c net.Conn)) string { return rawpeer.Serve(t, serve) }
