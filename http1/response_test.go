package http1

import (
	"errors"
	"net"
	"strings"
	"testing"
)

func TestReadResponseHead(t *testing.T) {
	for _, c := range []struct {
		in   string
		code int
		err  string
	}{
		{"HTTP/1.1 200 OK\r\n", 200, ""},
		{"HTTP/1.0 503\r\n\r\n", 503, ""},
		{"HTTP/1.1 204 \n", 204, ""},
		{"HTTP/1.1 302 Found\r\nLocation: /x\r\n" + strings.Repeat("X: y\r\n", 2000), 302, ""}, // the final headers are left to readHead
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", 200, ""},
		{"HTTP/1.1 101 Switching Protocols\r\n\r\n", 101, ""},
		{strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 6) + "HTTP/1.1 200 OK\r\n", 0, "interim"},
		{"HTTP/1.1 100 Continue\r\nX: " + strings.Repeat("y", 5000), 0, "unexpected EOF"},
		{"HTTP/1.1 100 Continue\r\nX: " + strings.Repeat("y", 5000) + "\r\n\r\nHTTP/1.1 204 No Content\r\n", 204, ""},
		{"HTTP/1.1 200 " + strings.Repeat("a", 5000), 0, "status line over 4096 bytes"},
		{"HTTP/1.1 200 OK", 0, "unexpected EOF"},
		{"", 0, "EOF"},
		{"SSH-2.0-OpenSSH\r\n", 0, "not an HTTP response"},
		{"HTTP/1.1  200 OK\r\n", 0, "bad status"},
		{"HTTP/1.1 2000 OK\r\n", 0, "bad status"},
		{"HTTP/1.1 +20 OK\r\n", 0, "bad status"},
		{"HTTP/1.1 099 OK\r\n", 0, "bad status"},
		{"HTTP/11 200 OK\r\n", 0, "not an HTTP response"},
		{"http/1.1 200 OK\r\n", 0, "not an HTTP response"},
	} {
		code, err := readResponseHead(strings.NewReader(c.in))
		if code != c.code || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.40q: %d %v, want %d %q", c.in, code, err, c.code, c.err)
		}
	}
	var ne net.Error
	_, err := readResponseHead(timeoutReader{})
	// probe's checkStatus reports such an error as "timed out"
	// (probe.TestCheckStatusTimeout).
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("a timeout must stay a net.Error timeout: %v", err)
	}
}

// timeoutReader fails as a conn past its deadline does.
type timeoutReader struct{}

func (timeoutReader) Read([]byte) (int, error) {
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: errTimeout{}}
}

type errTimeout struct{}

func (errTimeout) Error() string   { return "i/o timeout" }
func (errTimeout) Timeout() bool   { return true }
func (errTimeout) Temporary() bool { return true }
