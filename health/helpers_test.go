package health

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// serveTest listens on loopback, lets setup adjust the server before it
// serves, and returns it with a channel that gets Serve's result.
func serveTest(t *testing.T, setup func(*Server)) (*Server, <-chan error) {
	t.Helper()
	s, err := Listen("127.0.0.1:0", "test")
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(s)
	}
	s.Publish(&Status{Live: true, Ready: true, Published: time.Now()})
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() { _ = s.Close() }) // a second Close reports the closed socket; nothing to do
	return s, done
}

// exchange writes req on a new connection to addr and reads until the server
// closes it, all within d. err is any failure but the clean end of stream:
// a reset that cut the answer short is one.
func exchange(addr string, req []byte, d time.Duration) ([]byte, error) {
	c, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.Close() }()     // the answer is read, or err says why not
	_ = c.SetDeadline(time.Now().Add(d)) // fails only on a closed conn, which Write reports
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	return io.ReadAll(c)
}

// roundTrip is exchange followed by parsing the answer; it returns the code.
func roundTrip(addr string, req string, d time.Duration) (int, *http.Response, error) {
	raw, err := exchange(addr, []byte(req), d)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, resp, nil
}

const getLivez = "GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
