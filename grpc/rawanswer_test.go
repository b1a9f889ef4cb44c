package grpc

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// TestRawAnswerEdges: a legal answer that uses what a client must accept
// and grpc-go's server rarely sends: a graceful GOAWAY that keeps stream
// 1, PING, PRIORITY, an unknown frame type, an informational 1xx block,
// padded HEADERS with priority split over CONTINUATION, the message split
// over padded DATA frames, and trailers in two frames.
func TestRawAnswerEdges(t *testing.T) {
	var hb, tb bytes.Buffer
	e := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":status", "103"}} {
		_ = e.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}) // bytes.Buffer
	}
	info := append([]byte(nil), hb.Bytes()...)
	hb.Reset()
	for _, f := range [][2]string{{":status", "200"}, {"content-type", "application/grpc+proto"}, {"x-pad", "0123456789"}} {
		_ = e.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}) // bytes.Buffer
	}
	e2 := hpack.NewEncoder(&tb)
	_ = e2.WriteField(hpack.HeaderField{Name: "grpc-status", Value: "0"}) // bytes.Buffer
	_ = e2.WriteField(hpack.HeaderField{Name: "grpc-message", Value: ""}) // bytes.Buffer
	h, tr := hb.Bytes(), tb.Bytes()

	var b []byte
	add := func(typ, flags uint8, stream uint32, p []byte) { b = append(b, frame(typ, flags, stream, p)...) }
	add(frameSettings, 0, 0, []byte{0, 3, 0, 0, 0, 100})
	add(frameGoAway, 0, 0, []byte{0, 0, 0, 1, 0, 0, 0, 0}) // NO_ERROR, stream 1 still served
	add(framePing, 0, 0, []byte("12345678"))
	add(0x2, 0, 1, []byte{0, 0, 0, 0, 16}) // PRIORITY
	add(0xfa, 0xff, 7, []byte("unknown"))
	add(frameWindowUpdate, 0, 0, []byte{0, 0, 1, 0})
	add(frameHeaders, flagEndHeaders, 1, info)
	// PADDED|PRIORITY: pad length 3, 5 bytes of priority, first half of the block.
	first := append([]byte{3, 0, 0, 0, 0, 16}, h[:4]...)
	add(frameHeaders, flagPadded|flagPriority, 1, append(first, 0, 0, 0))
	add(frameContinuation, 0, 1, h[4:8])
	add(frameContinuation, flagEndHeaders, 1, h[8:])
	add(frameData, flagPadded, 1, []byte{2, 0, 0, 0, 'x', 'x'})
	add(frameData, 0, 1, []byte{0, 4, 0x12, 0x00}) // the prefix ends, an empty unknown field
	add(frameData, flagPadded, 1, []byte{1, 0x08, 0x01, 0})
	add(frameHeaders, flagEndStream, 1, tr[:1])
	add(frameContinuation, flagEndHeaders, 1, tr[1:])

	pings := make(chan []byte, 1)
	addr := rawPeer(t, func(c net.Conn) {
		readPreface(c)
		_, _ = c.Write(b) // a failed write fails the call below
		// Collect tend's answers: the PING ACK must echo the payload.
		got, _ := readAll(c)
		pings <- got
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := HealthCheck(ctx, addr, "svc"); err != nil {
		t.Fatalf("Check = %v", err)
	}
	got := <-pings
	if !bytes.Contains(got, frame(framePing, flagAck, 0, []byte("12345678"))) || !bytes.Contains(got, frame(frameSettings, flagAck, 0, nil)) {
		t.Fatalf("tend's writes after its request lack the PING or SETTINGS ACK: %x", got)
	}
}

// readAll reads until the client closes.
func readAll(c net.Conn) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(c)
	return b.Bytes(), err
}
