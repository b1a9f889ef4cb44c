package grpc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tend-init/tend/internal/excerpt"
)

// Frame types and flags of RFC 9113 section 6 that one unary call meets.
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePushPromise  = 0x5
	framePing         = 0x6
	frameGoAway       = 0x7
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20
)

// maxFrameSize is the SETTINGS_MAX_FRAME_SIZE tend advertises, the
// protocol's minimum: a health response is a few bytes, so a larger frame
// only lets a peer make tend buffer more.
const maxFrameSize = 16384

// frameHeader is the 9-byte header every frame starts with.
type frameHeader struct {
	Length uint32
	Type   uint8
	Flags  uint8
	Stream uint32
}

// parseFrameHeader decodes a frame header; the reserved bit is ignored,
// as RFC 9113 section 4.1 says a receiver must.
func parseFrameHeader(b [9]byte) frameHeader {
	return frameHeader{
		Length: uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]),
		Type:   b[3],
		Flags:  b[4],
		Stream: binary.BigEndian.Uint32(b[5:]) & 0x7fffffff,
	}
}

// errNotHTTP2 marks an answer that is not an HTTP/2 frame at all.
var errNotHTTP2 = errors.New("peer is not HTTP/2")

// frameReader reads frames into one fixed buffer: a peer can make it hold
// at most maxFrameSize bytes, whatever length it announces.
type frameReader struct {
	r     *bufio.Reader
	buf   [maxFrameSize]byte
	count int // frames read
	max   int // frames allowed
}

// next reads one frame; its payload is valid until the next call.
func (fr *frameReader) next() (frameHeader, []byte, error) {
	if fr.count >= fr.max {
		return frameHeader{}, nil, fmt.Errorf("more than %d frames in one call", fr.max)
	}
	var hb [9]byte
	if _, err := io.ReadFull(fr.r, hb[:]); err != nil {
		return frameHeader{}, nil, err
	}
	fr.count++
	h := parseFrameHeader(hb)
	if fr.count == 1 && (h.Type != frameSettings || h.Stream != 0) {
		// A server's preface is a SETTINGS frame (RFC 9113 section 3.4);
		// anything else, an HTTP/1.1 status line above all, says the
		// port speaks something else: quote what it said.
		return h, nil, fmt.Errorf("%w (answered %s)", errNotHTTP2, excerpt.Quote(string(hb[:])+peekLine(fr.r)))
	}
	if h.Length > maxFrameSize {
		return h, nil, fmt.Errorf("FRAME_SIZE_ERROR: %s frame of %d bytes, over the %d advertised", frameName(h.Type), h.Length, maxFrameSize)
	}
	p := fr.buf[:h.Length]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		return h, nil, err
	}
	return h, p, nil
}

// peekLine returns what is already buffered, up to a newline and at most
// excerpt.Max bytes, for quoting a non-HTTP/2 answer without waiting.
func peekLine(r *bufio.Reader) string {
	n := min(r.Buffered(), excerpt.Max)
	b, _ := r.Peek(n) // Peek of what is buffered cannot fail
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return string(b[:i])
		}
	}
	return string(b)
}

var frameNames = [...]string{"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"}

func frameName(t uint8) string {
	if int(t) < len(frameNames) {
		return frameNames[t]
	}
	return "frame type 0x" + strconv.FormatUint(uint64(t), 16)
}

// appendFrame appends one frame with payload p to b.
func appendFrame(b []byte, typ, flags uint8, stream uint32, p []byte) []byte {
	n := len(p)
	b = append(b, byte(n>>16), byte(n>>8), byte(n), typ, flags)
	b = binary.BigEndian.AppendUint32(b, stream&0x7fffffff)
	return append(b, p...)
}

// unpad strips the padding of a PADDED DATA or HEADERS payload.
func unpad(h frameHeader, p []byte) ([]byte, error) {
	if h.Flags&flagPadded == 0 {
		return p, nil
	}
	if len(p) < 1 || int(p[0]) > len(p)-1 {
		return nil, fmt.Errorf("PROTOCOL_ERROR: %s padding longer than the frame", frameName(h.Type))
	}
	return p[1 : len(p)-int(p[0])], nil
}
