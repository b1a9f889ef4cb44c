package grpc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

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
	err := HealthCheck(ctx, addr, "svc")
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
			if h.timeout {
				// What is measured here is that nothing is left behind.
				// With a 100 ms deadline on a loaded machine (load 31)
				// the dial itself can be what times out; TestHostilePeers
				// checks each timeout's own wording.
				h.want = "timeout: "
			}
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
