package http1

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestParseRequestHead(t *testing.T) {
	for _, c := range []struct {
		in, method, target string
		err                error
	}{
		{"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/livez", nil},
		{"HEAD /a?b HTTP/1.0\n\n", "HEAD", "/a?b", nil},
		{"GET /livez HTTP/1.1\r\nHost: x\r\n\r\nbody that is never read", "GET", "/livez", nil},
		{"GET / HTTP/1.1\r\n", "", "", io.EOF},
		{"GET / HTTP/1.1\r\nHost: x", "", "", io.ErrUnexpectedEOF},
		{"GET / HTTP/1.1", "", "", io.ErrUnexpectedEOF},
		{"", "", "", io.EOF},
		{"GET / HTTP/1.1\r\nHost\r\n\r\n", "", "", ErrBadRequest},
		{"GET / HTTP/1.1 \r\n\r\n", "", "", ErrBadRequest},
		{"GET /a\x00 HTTP/1.1\r\n\r\n", "", "", ErrBadRequest},
		{"GET / HTTP/1.1\r\n" + strings.Repeat("X: y\r\n", 1000) + "\r\n", "", "", ErrHeadTooLarge},
		{"GET /" + strings.Repeat("a", 5000), "", "", ErrHeadTooLarge},
	} {
		m, tg, err := ParseRequestHead(strings.NewReader(c.in), headLimit)
		if m != c.method || tg != c.target || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%.40q: %q %q %v, want %q %q %v", c.in, m, tg, err, c.method, c.target, c.err)
		}
	}
}

// headLimit is the bound the health server passes to ParseRequestHead
// (health's maxHeader): the tests here read heads as that server does.
const headLimit = 4096
