package health

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestBodyGetsWholeAnswer: a POST with a body is answered 405, and the
// client reads that answer to its end rather than a reset.
func TestBodyGetsWholeAnswer(t *testing.T) {
	s, _ := serveTest(t, nil)
	body := strings.Repeat("x", 2048)
	req := "POST /readyz HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n" + body
	for i := 0; i < 20; i++ { // the reset raced the answer; try it a few times
		code, resp, err := roundTrip(s.Addr().String(), req, 2*time.Second)
		if err != nil || code != 405 {
			t.Fatalf("try %d: %d %v", i, code, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || string(b) != "method not allowed\n" || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Fatalf("try %d: body %q %v, Allow %q", i, b, err, resp.Header.Get("Allow"))
		}
	}
}

// TestPipelinedFirstAnswered: two pipelined GETs, over 512 bytes together;
// the first is answered in full, the second dropped without a reset.
func TestPipelinedFirstAnswered(t *testing.T) {
	s, _ := serveTest(t, nil)
	one := "GET /livez HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("p", 400) + "\r\n\r\n"
	for i := 0; i < 20; i++ {
		raw, err := exchange(s.Addr().String(), []byte(one+one), 2*time.Second)
		if err != nil {
			t.Fatalf("try %d: %v after %q", i, err, raw)
		}
		if !strings.HasPrefix(string(raw), "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(string(raw), "\r\n\r\nok\n") {
			t.Fatalf("try %d: %q", i, raw)
		}
	}
}

// TestMalformedGets400: each malformed head gets a 400 answer.
func TestMalformedGets400(t *testing.T) {
	s, _ := serveTest(t, nil)
	for _, req := range []string{
		"GET /livez HTTP/1.1\r\nHost x\r\n\r\n",             // header without a colon
		"GET /livez HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", // later header without one
		"GET /livez HTTP/1.1x\r\n\r\n",                      // junk after the version
		"GET /livez HTTP/1.1 junk\r\n\r\n",                  // a fourth field
		"GET /livez HTTP/2.0\r\n\r\n",                       // not HTTP/1.x
		"GET /livez http/1.1\r\n\r\n",                       // the version is case-sensitive
		"GET /li\x01vez HTTP/1.1\r\n\r\n",                   // control byte in the target
		"GET /livez\x7f HTTP/1.1\r\n\r\n",                   // DEL in the target
		"GET /livez\tHTTP/1.1\r\n\r\n",                      // tab as a separator
		"G(T /livez HTTP/1.1\r\n\r\n",                       // method not a token
		"GET livez HTTP/1.1\r\n\r\n",                        // target without /
		"GET http://x/livez HTTP/1.1\r\n\r\n",               // absolute form: tend is no proxy
		"GET  /livez HTTP/1.1\r\n\r\n",                      // two spaces
		"GET /livez HTTP/1.1\r\nHost : x\r\n\r\n",           // space before the colon
		"GET /livez HTTP/1.1\r\n folded\r\n\r\n",            // obsolete line folding
		"GET /livez HTTP/1.1\r\nX: a\x00b\r\n\r\n",          // NUL in a value
		"\r\n", // empty request line
	} {
		code, resp, err := roundTrip(s.Addr().String(), req, 2*time.Second)
		if err != nil || code != 400 || resp.Status != "400 Bad Request" {
			t.Errorf("%q: %d %v", req, code, err)
		}
	}
	for _, req := range []string{ // and these are fine
		"GET /livez HTTP/1.0\r\n\r\n",
		"GET /livez HTTP/1.1\nHost: x\n\n", // LF-only line ends
		"GET /livez?x=1 HTTP/1.1\r\nX-Tab:\ta\tb\r\nEmpty:\r\n\r\n",
	} {
		if code, _, err := roundTrip(s.Addr().String(), req, 2*time.Second); code != 200 {
			t.Errorf("%q: %d %v", req, code, err)
		}
	}
}

// TestHeadTooLarge: a head over maxHeader bytes gets 431, as net/http does.
func TestHeadTooLarge(t *testing.T) {
	s, _ := serveTest(t, nil)
	for _, req := range []string{
		"GET /livez HTTP/1.1\r\nX: " + strings.Repeat("a", maxHeader) + "\r\n\r\n",
		"GET /" + strings.Repeat("a", maxHeader) + " HTTP/1.1\r\n\r\n",
	} {
		if code, _, err := roundTrip(s.Addr().String(), req, 2*time.Second); code != 431 {
			t.Errorf("%d bytes: %d %v", len(req), code, err)
		}
	}
}

// TestLingerBounded: a client that keeps sending after its request is cut
// off once lingerBytes have been drained or lingerTimeout has passed.
func TestLingerBounded(t *testing.T) {
	s, _ := serveTest(t, nil)
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()                   // test cleanup
	_ = c.SetDeadline(time.Now().Add(5 * time.Second)) // fails only on a closed conn
	if _, err := io.WriteString(c, getLivez); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("%q %v", line, err)
	}
	start := time.Now()
	junk := make([]byte, 4096)
	for err == nil {
		_, err = c.Write(junk)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server still read after %s", time.Since(start))
	}
	t.Logf("cut off after %s: %v", time.Since(start), err)
}

func TestStatusText(t *testing.T) {
	for code, want := range map[int]string{
		200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
		431: "Request Header Fields Too Large", 503: "Service Unavailable", 599: "", 500: "",
	} {
		if got := statusText(code); got != want {
			t.Errorf("statusText(%d) = %q, want %q", code, got, want)
		}
	}
}

// TestContentLengthFraming: a request whose Content-Length values differ,
// or is not a number, gets 400, as RFC 9112 section 6.3 requires ("the
// message framing is invalid ... the server MUST respond with a 400"). The
// same value repeated in separate fields is accepted, as net/http's server
// does (RFC 9110 section 8.6 allows either).
func TestContentLengthFraming(t *testing.T) {
	s, _ := serveTest(t, nil)
	for _, c := range []struct {
		req  string
		code int
	}{
		{"GET /livez HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello", 400},
		{"GET /livez HTTP/1.1\r\ncontent-length: 5\r\nCONTENT-LENGTH: 6\r\n\r\nhello!", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: 5\r\nX: y\r\nContent-Length: 50\r\n\r\nhello", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\nhello", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\nhello", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: +5\r\n\r\nhello", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: 0x5\r\n\r\nhello", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: \r\n\r\n", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400},
		{"GET /livez HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 200},
		{"GET /livez HTTP/1.1\r\nContent-Length:  5 \r\n\r\nhello", 200},
		{"GET /livez HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 200},
	} {
		code, _, err := roundTrip(s.Addr().String(), c.req, 2*time.Second)
		if code != c.code {
			t.Errorf("%q: %d %v, want %d", c.req, code, err, c.code)
		}
	}
}
