package grpc

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/tend-init/tend/internal/excerpt"
)

// clientPreface starts every HTTP/2 connection (RFC 9113 section 3.4).
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// Limits on what a peer can make one call do beyond its frame and header
// sizes. A unary health call needs about ten frames and no PING.
const (
	maxFrames  = 256 // frames read per call
	maxControl = 16  // SETTINGS and PINGs answered per call
)

// settings is tend's SETTINGS payload: no server push, and the frame and
// header list limits that frame.go and headers.go enforce.
func settings() []byte {
	var p []byte
	for _, s := range [...][2]uint32{
		{0x2, 0},                 // SETTINGS_ENABLE_PUSH
		{0x5, maxFrameSize},      // SETTINGS_MAX_FRAME_SIZE
		{0x6, maxHeaderListSize}, // SETTINGS_MAX_HEADER_LIST_SIZE
	} {
		p = binary.BigEndian.AppendUint16(p, uint16(s[0]))
		p = binary.BigEndian.AppendUint32(p, s[1])
	}
	return p
}

// control handles a frame on stream 0 or one that does not concern the
// call's stream: it answers SETTINGS and PING, ends the call on GOAWAY,
// and skips the rest. It returns an error to end the call.
func (c *call) control(h frameHeader, p []byte) error {
	switch h.Type {
	case frameSettings:
		if h.Stream != 0 || len(p)%6 != 0 || (h.Flags&flagAck != 0 && len(p) != 0) {
			return fmt.Errorf("PROTOCOL_ERROR: malformed SETTINGS frame")
		}
		if h.Flags&flagAck != 0 {
			return nil
		}
		// tend's frames are smaller than any setting a server may
		// choose (16384-byte frames at least, a request of under 5
		// KiB sent within the default window before this arrives), so
		// only the ACK is owed.
		return c.answer(frameSettings, flagAck, nil)
	case framePing:
		if h.Stream != 0 || len(p) != 8 {
			return fmt.Errorf("PROTOCOL_ERROR: malformed PING frame")
		}
		if h.Flags&flagAck != 0 {
			return nil
		}
		return c.answer(framePing, flagAck, p)
	case frameGoAway:
		if h.Stream != 0 || len(p) < 8 {
			return fmt.Errorf("PROTOCOL_ERROR: malformed GOAWAY frame")
		}
		last := binary.BigEndian.Uint32(p) & 0x7fffffff
		code := binary.BigEndian.Uint32(p[4:])
		if code == 0 && last >= 1 {
			// A graceful shutdown that still serves stream 1: the
			// answer follows (RFC 9113 section 6.8).
			return nil
		}
		return fmt.Errorf("peer sent GOAWAY %s (last stream %d, debug %s)", h2CodeName(code), last, excerpt.Quote(string(p[8:])))
	case frameRSTStream:
		if h.Stream == 0 || len(p) != 4 {
			return fmt.Errorf("PROTOCOL_ERROR: malformed RST_STREAM frame")
		}
		if h.Stream != 1 {
			return nil // a stream tend never opened; nothing to end
		}
		return fmt.Errorf("peer reset the stream: RST_STREAM %s", h2CodeName(binary.BigEndian.Uint32(p)))
	case frameWindowUpdate:
		if len(p) != 4 {
			return fmt.Errorf("FRAME_SIZE_ERROR: malformed WINDOW_UPDATE frame")
		}
		return nil // tend's request fits in the initial window
	case frameContinuation:
		return fmt.Errorf("PROTOCOL_ERROR: CONTINUATION without HEADERS")
	case framePushPromise:
		return fmt.Errorf("PROTOCOL_ERROR: PUSH_PROMISE, which tend disabled")
	case frameHeaders, frameData:
		return fmt.Errorf("PROTOCOL_ERROR: %s on stream %d, which tend did not open", frameName(h.Type), h.Stream)
	}
	// PRIORITY and frame types tend does not know are skipped (RFC 9113
	// sections 4.1 and 5.5).
	return nil
}

// answer writes a SETTINGS or PING acknowledgement, at most maxControl a
// call: a peer cannot keep tend writing.
func (c *call) answer(typ, flags uint8, p []byte) error {
	if c.answered >= maxControl {
		return fmt.Errorf("ENHANCE_YOUR_CALM: more than %d SETTINGS and PINGs to answer", maxControl)
	}
	c.answered++
	_, err := c.nc.Write(appendFrame(nil, typ, flags, 0, p))
	return err
}

// goAway tells the server tend is done, so that it does not log a broken
// connection; best effort, the connection closes anyway.
func goAway(nc net.Conn) {
	p := make([]byte, 8)                                    // last stream 0, NO_ERROR
	_, _ = nc.Write(appendFrame(nil, frameGoAway, 0, 0, p)) // the close that follows ends the connection either way
}
