package probe

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzParseSpec: no panic, one-line errors.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x", "tcp://h:1", "tcp://", "http://[::1", "exit 0", `["a"]`, "[", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseSpec(s); err != nil && strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}

// FuzzParseAddr: no panic, one-line errors, and the error names the input.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8081", "not-an-address", ":0", "[::1]:80", "x:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ParseAddr(s); err != nil && strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}

// countingReader counts what a parser consumed of its input.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzRequestHead: no panic, consumption bounded by the limit, one-line
// errors, and an accepted head has a token method and an origin-form target
// free of control bytes.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n",
		"HEAD /readyz?x=1 HTTP/1.0\r\n\r\n",
		"GET /livez HTTP/1.1\nHost: x\n\n",                                   // LF-only
		"POST /readyz HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",            // a body
		"GET /livez HTTP/1.1\r\n\r\nGET /readyz HTTP/1.1\r\n\r\n",            // pipelined
		"GET /livez HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("a", 5000),     // oversized line
		"GET /" + strings.Repeat("a", 5000) + " HTTP/1.1\r\n\r\n",            // oversized target
		"GET /livez HTTP/1.1\r\n" + strings.Repeat("X: y\r\n", 800) + "\r\n", // oversized head
		"GET /livez HTTP/1.1",                                                // no newline
		"GET /livez HTTP/1.1\r\nHost x\r\n\r\n",                              // no colon
		"GET /livez HTTP/1.1x\r\n\r\n",                                       // bad version
		"GET /livez HTTP/1.1 junk\r\n\r\n",
		"GET /li\x01vez HTTP/1.1\r\n\r\n", // control bytes
		"GET /livez\x7f HTTP/1.1\r\n\r\n",
		"G(T /livez HTTP/1.1\r\n\r\n", // method not a token
		"GET livez HTTP/1.1\r\n\r\n",  // target without /
		"GET /livez HTTP/1.1\r\n folded\r\n\r\n",
		"GET /livez HTTP/1.1\r\nX: a\tb\r\n\r\n",
		"\r\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := &countingReader{r: bytes.NewReader(in)}
		method, target, err := parseRequestHead(r, maxHeader)
		if r.n > maxHeader {
			t.Fatalf("read %d bytes, limit %d", r.n, maxHeader)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("multi-line error %q", err)
			}
			if method != "" || target != "" {
				t.Fatalf("error %v with %q %q", err, method, target)
			}
			return
		}
		if !isToken(method) || !strings.HasPrefix(target, "/") || hasCtl(target, false) || strings.Contains(target, " ") {
			t.Fatalf("accepted method %q target %q", method, target)
		}
	})
}

// FuzzResponseHead: no panic, consumption bounded by the limit, one-line
// errors, and an accepted code is a three-digit final status.
func FuzzResponseHead(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n",
		"HTTP/1.0 503 Service Unavailable\n\n",
		"HTTP/1.1 204\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 " + strings.Repeat("a", 5000), // no newline, endless
		"HTTP/1.1 100 Continue\r\nX: " + strings.Repeat("y", 5000),
		"HTTP/1.1 2000 OK\r\n", "HTTP/1.1 099 OK\r\n", "HTTP/1.1 +20 OK\r\n",
		"SSH-2.0-OpenSSH_9.2\r\n", "HTTP/1.1 200 OK", "",
		strings.Repeat("\xa0", 37) + "\xe3\xe3\xe3\xe3" + strings.Repeat("0", 13), // once a 201-byte error: %q writes \xa0 as four bytes
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := &countingReader{r: bytes.NewReader(in)}
		code, err := readResponseHead(r, maxResponseHead)
		if r.n > maxResponseHead {
			t.Fatalf("read %d bytes, limit %d", r.n, maxResponseHead)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") || code != 0 {
				t.Fatalf("error %q with code %d", err, code)
			}
			if len(err.Error()) > 200 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if code < 100 || code > 999 || code < 200 && code != 101 {
			t.Fatalf("accepted code %d", code)
		}
	})
}
