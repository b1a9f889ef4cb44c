package grpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// rawPeer serves every connection on a loopback listener with behave, a
// hostile HTTP/2 server written frame by frame. Cleanup closes the
// listener and waits for every connection's goroutine.
func rawPeer(t *testing.T, behave func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener closed at cleanup
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { _ = c.Close() }() // the client sees the close as it may
				// No behaviour outlives its test by more than this.
				_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a fresh TCP connection takes a deadline
				behave(c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close() // ends the accept loop
		wg.Wait()
	})
	return ln.Addr().String()
}

// readPreface reads the client preface and tend's SETTINGS frame.
func readPreface(c net.Conn) bool {
	b := make([]byte, len(clientPreface)+9+18)
	_, err := io.ReadFull(c, b)
	return err == nil
}

func frame(typ, flags uint8, stream uint32, p []byte) []byte {
	return appendFrame(nil, typ, flags, stream, p)
}

var serverSettings = frame(frameSettings, 0, 0, nil)

// responseHeaders is an HPACK block of a 200 gRPC answer.
func responseHeaders() []byte {
	var b bytes.Buffer
	e := hpack.NewEncoder(&b)
	_ = e.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})                   // bytes.Buffer
	_ = e.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/grpc"}) // bytes.Buffer
	return b.Bytes()
}

// writeForever writes f until the client goes away.
func writeForever(c net.Conn, f []byte) {
	for {
		if _, err := c.Write(f); err != nil {
			return
		}
	}
}

// drain reads until the client closes: a peer that holds the connection.
func drain(c net.Conn) { _, _ = io.Copy(io.Discard, c) } // ends with the client's close

type hostile struct {
	name    string
	behave  func(net.Conn)
	want    string // in the error
	timeout bool   // the call must end by its deadline
}

var hostiles = []hostile{
	{"http1", func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")) // a failed write fails the test's call
		drain(c)
	}, `peer is not HTTP/2 (answered "HTTP/1.1 400 Bad Request")`, false},
	{"no-settings-silent", drain, "timeout: health rpc did not complete within", true},
	{"no-settings-ping-first", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(frame(framePing, 0, 0, make([]byte, 8))) // as above
		drain(c)
	}, "peer is not HTTP/2", false},
	{"holds-open-silently", func(c net.Conn) {
		// An HTTP/2 server that sets up the connection, then never
		// answers the call.
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameSettings, flagAck, 0, nil)...)) // as above
		drain(c)
	}, "timeout: health rpc did not complete within", true},
	{"continuation-flood", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameHeaders, 0, 1, responseHeaders())...)) // as above
		writeForever(c, frame(frameContinuation, 0, 1, make([]byte, 4096)))
	}, "header block over the 16384 bytes advertised", false},
	{"continuation-flood-empty", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameHeaders, 0, 1, nil)...)) // as above
		writeForever(c, frame(frameContinuation, 0, 1, nil))
	}, "more than 256 frames in one call", false},
	{"headers-flood", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(serverSettings) // as above
		// A header list that decodes to far more than it weighs:
		// one literal field, then an index to it again and again.
		var b bytes.Buffer
		e := hpack.NewEncoder(&b)
		_ = e.WriteField(hpack.HeaderField{Name: "x", Value: strings.Repeat("v", 4000)}) // bytes.Buffer
		for range 100 {
			_ = e.WriteField(hpack.HeaderField{Name: "x", Value: strings.Repeat("v", 4000)}) // bytes.Buffer
		}
		_, _ = c.Write(frame(frameHeaders, flagEndHeaders, 1, b.Bytes())) // as above
		drain(c)
	}, "header list over the 16384 bytes advertised", false},
	{"data-flood", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameHeaders, flagEndHeaders, 1, responseHeaders())...)) // as above
		writeForever(c, frame(frameData, 0, 1, make([]byte, maxFrameSize)))
	}, "more than one response message in a unary call", false},
	{"data-flood-empty", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameHeaders, flagEndHeaders, 1, responseHeaders())...)) // as above
		writeForever(c, frame(frameData, 0, 1, nil))
	}, "more than 256 frames in one call", false},
	{"message-4GB", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameHeaders, flagEndHeaders, 1, responseHeaders())...)) // as above
		writeForever(c, frame(frameData, 0, 1, []byte{0, 0xff, 0xff, 0xff, 0xff}))
	}, "response message of 4294967295 bytes, over the 4096 limit", false},
	{"compressed", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameHeaders, flagEndHeaders, 1, responseHeaders())...)) // as above
		_, _ = c.Write(frame(frameData, 0, 1, []byte{1, 0, 0, 0, 2, 8, 1}))                                  // as above
		drain(c)
	}, "compressed response message", false},
	{"frame-over-limit", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, 0xff, 0xff, 0xff, frameData, 0, 0, 0, 0, 1)) // as above
		drain(c)
	}, "FRAME_SIZE_ERROR: DATA frame of 16777215 bytes, over the 16384 advertised", false},
	{"goaway", func(c net.Conn) {
		readPreface(c)
		p := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 0), 0xb)
		_, _ = c.Write(append(serverSettings, frame(frameGoAway, 0, 0, append(p, "calm\ndown"...))...)) // as above
		drain(c)
	}, `peer sent GOAWAY ENHANCE_YOUR_CALM (last stream 0, debug "calm\ndown")`, false},
	{"rst-stream", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(append(serverSettings, frame(frameRSTStream, 0, 1, []byte{0, 0, 0, 7})...)) // as above
		drain(c)
	}, "peer reset the stream: RST_STREAM REFUSED_STREAM", false},
	{"ping-flood", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(serverSettings) // as above
		go drain(c)                    // reads tend's PING ACKs; ends with the close
		writeForever(c, frame(framePing, 0, 0, make([]byte, 8)))
	}, "ENHANCE_YOUR_CALM: more than 16 SETTINGS and PINGs to answer", false},
	{"trickle", func(c net.Conn) {
		readPreface(c)
		// A valid SETTINGS, then a maximal frame of a type tend skips,
		// one byte at a time: the call can only end by its deadline.
		b := append(serverSettings, frame(0xfa, 0, 0, make([]byte, maxFrameSize))...)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for i := range b {
			<-tick.C
			if _, err := c.Write(b[i : i+1]); err != nil {
				return
			}
		}
	}, "timeout: health rpc did not complete within", true},
	{"close-after-settings", func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(serverSettings) // as above
	}, "connection closed by the peer before the answer", false}, // reset, as it leaves the request unread,
}

// checkHostile makes one call with deadline d and checks its error.
func checkHostile(t *testing.T, h hostile, addr string, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := Check(ctx, addr, "svc")
	if err == nil {
		t.Fatalf("%s: Check succeeded", h.name)
	}
	msg := err.Error()
	if !strings.Contains(msg, h.want) {
		t.Fatalf("%s: Check = %q, want it to contain %q", h.name, msg, h.want)
	}
	if strings.ContainsAny(msg, "\r\n\x00\x1b") {
		t.Fatalf("%s: error is not one line: %q", h.name, msg)
	}
	if errors.Is(err, context.DeadlineExceeded) != h.timeout {
		t.Fatalf("%s: Check = %q, timeout %v, want %v", h.name, msg, !h.timeout, h.timeout)
	}
}

func TestHostilePeers(t *testing.T) {
	for _, h := range hostiles {
		t.Run(h.name, func(t *testing.T) {
			d := 20 * time.Second // a hang fails; a protocol error ends the call long before
			if h.timeout {
				d = 300 * time.Millisecond
			}
			checkHostile(t, h, rawPeer(t, h.behave), d)
		})
	}
}

// TestHostilePeersFlat makes 50 calls to each hostile peer and checks that
// goroutines and heap come back to where they were.
func TestHostilePeersFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("50 calls per peer")
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	for _, h := range hostiles {
		t.Run(h.name, func(t *testing.T) {
			addr := rawPeer(t, h.behave)
			var wg sync.WaitGroup
			for range 5 { // 5 at a time, 10 rounds
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 10 {
						checkHostile(t, h, addr, 100*time.Millisecond+map[bool]time.Duration{false: 20 * time.Second}[h.timeout])
					}
				}()
			}
			wg.Wait()
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > g0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling for exits, bounded by the deadline
	}
	if g := runtime.NumGoroutine(); g > g0 {
		t.Errorf("goroutines: %d before, %d after %d calls", g0, g, 50*len(hostiles))
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("heap in use: %d bytes before, %d after; goroutines %d", before.HeapAlloc, after.HeapAlloc, g0)
	if after.HeapAlloc > before.HeapAlloc+8<<20 {
		t.Errorf("heap grew from %d to %d bytes over %d calls", before.HeapAlloc, after.HeapAlloc, 50*len(hostiles))
	}
}

// TestCheckNoDeadline: a context without a deadline still ends, by the
// kubelet's default timeout, against a peer that never answers.
func TestCheckNoDeadline(t *testing.T) {
	addr := rawPeer(t, drain)
	done := make(chan error, 1)
	go func() { done <- Check(context.Background(), addr, "") }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 1s") {
			t.Fatalf("Check without a deadline = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Check without a deadline did not end")
	}
}

// TestCheckCancelled: cancelling the context (tend stopping) ends a call
// that is waiting on a silent peer, and it is not reported as a timeout.
func TestCheckCancelled(t *testing.T) {
	reading := make(chan struct{}, 1)
	addr := rawPeer(t, func(c net.Conn) {
		readPreface(c)
		reading <- struct{}{}
		drain(c)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Check(ctx, addr, "") }()
	select {
	case <-reading:
	case <-time.After(30 * time.Second):
		t.Fatal("the request never arrived")
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("Check after cancel = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Check did not end at cancel")
	}
}
