package http1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/rawpeer"
)

// The fake peer is internal/rawpeer's, shared with the other package's
// body tests.
const oneMiB = rawpeer.OneMiB

// kubeletBodyCap is the kubelet's maxRespBodyLength, written out so that a
// change of maxResponseBody shows.
const kubeletBodyCap = 10 << 10

var bodyHeads = rawpeer.BodyHeads

func bodyChunk(framing string, n int) string { return rawpeer.Chunk(framing, n) }

func serveRaw(t *testing.T, serve func(c net.Conn)) string { return rawpeer.Serve(t, serve) }

func readRequest(c net.Conn) error { return rawpeer.ReadRequest(c) }

// TestBodyConsumed: over a synchronous pipe, where the server's writes
// finish only as the client reads, the client reads exactly the head and
// maxResponseBody bytes of a 1 MiB body: not fewer (it read no body at all
// before), and not all of it.
func TestBodyConsumed(t *testing.T) {
	u, _ := url.Parse("http://pipe/") // a constant URL
	for framing, head := range bodyHeads {
		client, server := net.Pipe()
		_ = client.SetDeadline(time.Now().Add(5 * time.Second)) // a pipe has no error but a closed one here
		_ = server.SetDeadline(time.Now().Add(5 * time.Second))
		consumed := make(chan int, 1)
		go func() {
			defer func() { _ = server.Close() }() // test cleanup
			total := 0
			defer func() { consumed <- total }()
			if readRequest(server) != nil {
				return
			}
			n, err := io.WriteString(server, head)
			total += n
			for i := 0; err == nil && i < oneMiB/256; i++ {
				n, err = io.WriteString(server, bodyChunk(framing, 256))
				total += n
			}
		}()
		h := hop{r: Request{URL: u.String()}, orig: u, u: u, shown: u.String(), head: "GET / HTTP/1.1\r\nHost: pipe\r\n\r\n"}
		resp, next, err := h.exchange(client)
		_ = client.Close() // as getOne does; the server's writes then fail
		if err != nil || next != nil || resp.Code != 200 {
			t.Errorf("%s: %+v %v %v", framing, resp, next, err)
		}
		if n := <-consumed - len(head); n != kubeletBodyCap {
			t.Errorf("%s: the client read %d bytes of body, want %d", framing, n, kubeletBodyCap)
		}
	}
}

// TestGetCancel: cancelling the context (a stop overtaking a hook) cuts a
// read that has no deadline, at once.
func TestGetCancel(t *testing.T) {
	asked := make(chan struct{})
	addr := serveRaw(t, func(c net.Conn) {
		close(asked)
		_, _ = c.Read(make([]byte, 1)) // answer nothing until the client closes
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Get(ctx, Request{URL: "http://" + addr + "/"})
		done <- err
	}()
	<-asked // the client now waits for an answer, with no deadline
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Get ignored the cancel")
	}
}
