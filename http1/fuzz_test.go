package http1

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
)

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
		method, target, err := ParseRequestHead(r, headLimit)
		if r.n > headLimit {
			t.Fatalf("read %d bytes, limit %d", r.n, headLimit)
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
		code, err := readResponseHead(r)
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

// FuzzResponse: the whole client read of one response, head and body, as
// Get does it: no panic, consumption bounded by the two limits, one-line
// errors, and an accepted head has a final code and a sane framing.
func FuzzResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n",
		"HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x\r\nhello\r\n0\r\nT: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("1\r\na\r\n", 3000),
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 11000),
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nraw",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\n" + strings.Repeat("b", 11000),
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n" + strings.Repeat("b", 11000),
		"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.1 200 OK\r\n" + strings.Repeat("X: y\r\n", 1000),
		"HTTP/1.1 200 OK\r\nbroken\r\n\r\n", "HTTP/1.1 200 OK\r\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := &countingReader{r: bytes.NewReader(in)}
		h, body, err := readResponse(r)
		if err == nil {
			err = discardBody(body, h)
		}
		if r.n > maxResponseHead+maxResponseBody {
			t.Fatalf("read %d bytes, limits %d+%d", r.n, maxResponseHead, maxResponseBody)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") || len(err.Error()) > 200 {
				t.Fatalf("error %q", err)
			}
			return
		}
		if h.code < 100 || h.code > 999 || h.code < 200 && h.code != 101 || h.chunked && h.length != -1 || h.length < -1 {
			t.Fatalf("accepted %+v", h)
		}
	})
}

// FuzzRequestHeaders: a header list and target that Get accepts give a
// request head with nothing smuggled in: tend's own server parses it as
// one GET (or POST, whose Content-Length is its body's) of the same
// target, and it has one line per header. The target is an http:// URL,
// or an http://unix:/PATH:/URI one when socket is set.
func FuzzRequestHeaders(f *testing.F) {
	f.Add("/healthz?x=1", "X-A", "1", "Host", "app.test", false, "")
	f.Add("/", "User-Agent", "", "Accept", "", true, "")
	f.Add("/a b", "X-A", "a\r\nX-Evil: 1", "Connection", "close", false, "")
	f.Add("/%0d%0a", "X A", "1", "Content-Length", "5", true, "body\r\n\r\nGET / HTTP/1.1")
	f.Add("/run/app.sock:/x?y", "X-A", "1", "Transfer-Encoding", "chunked", true, "unix")
	f.Add("/run/a:b:/x", "X-A", "1", "Host", "h", false, "unix")
	f.Fuzz(func(t *testing.T, path, n1, v1, n2, v2 string, post bool, body string) {
		raw := "http://127.0.0.1:8080" + path
		if strings.HasPrefix(body, "unix") {
			raw = "http://unix:" + path
		}
		u, socket, err := parseTarget(raw)
		if err != nil || !strings.HasPrefix(path, "/") {
			return
		}
		if socket != "" && (!strings.HasPrefix(socket, "/") || strings.Contains(socket, ":") || len(socket) > 107 || u.Host != "localhost") {
			t.Fatalf("%q: socket %q, host %q", raw, socket, u.Host)
		}
		hs, err := newHeaderSet([]Header{{n1, v1}, {n2, v2}}, "tend/dev")
		if err != nil {
			return
		}
		want := "GET"
		if post {
			want, hs.method, hs.body = "POST", "POST", []byte(body)
		}
		head := hs.head(u, hs.host, "")
		if len(head) > headLimit {
			return // the server's bound, not a smuggling
		}
		method, target, err := ParseRequestHead(strings.NewReader(head+body), headLimit)
		if err != nil || method != want || target != u.RequestURI() {
			t.Fatalf("head %q: %q %q %v", head, method, target, err)
		}
		if lines := strings.Count(head, "\n"); lines > 2+4+4 || strings.Count(head, "\r\n") != lines {
			t.Fatalf("head %q has %d lines", head, lines)
		}
		if cl := strings.Count(strings.ToLower(head), "\r\ncontent-length:"); post && (cl != 1 || !strings.Contains(head, "\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n")) || !post && cl != 0 {
			t.Fatalf("head %q: %d Content-Length lines for a %d-byte body", head, cl, len(body))
		}
	})
}
