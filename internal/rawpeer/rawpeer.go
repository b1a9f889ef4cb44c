// Package rawpeer is a fake HTTP/1.1 server for tests: it reads a request
// head and then writes whatever bytes a test wants, framed or not, so that
// the client's limits can be tried against peers net/http would never be.
// Only tests import it (http1's and probe's), so it is never in the binary.
package rawpeer

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// OneMiB is the body the cap tests offer: a hundred times the kubelet's cap.
const OneMiB = 1 << 20

// BodyHeads is a response head for a 1 MiB body in each framing.
var BodyHeads = map[string]string{
	"content-length": fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", OneMiB),
	"chunked":        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
	"until close":    "HTTP/1.1 200 OK\r\n\r\n",
}

// Chunk is the next n body bytes in a framing.
func Chunk(framing string, n int) string {
	if framing == "chunked" {
		return fmt.Sprintf("%x\r\n%s\r\n", n, strings.Repeat("b", n))
	}
	return strings.Repeat("b", n)
}

// Serve serves each connection to a loopback listener with serve, once it
// has read the request head, and returns the listener's address. Every
// connection is bounded by 5 s, the fake server included.
func Serve(t testing.TB, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() }) // test cleanup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			go func() {
				defer func() { _ = c.Close() }()                   // test cleanup
				_ = c.SetDeadline(time.Now().Add(5 * time.Second)) // bounds the fake server too
				if ReadRequest(c) == nil {
					serve(c)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// ReadRequest reads a request head up to its blank line.
func ReadRequest(c net.Conn) error {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil || line == "\r\n" {
			return err
		}
	}
}
