package grpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// onHeaders reads a header block, CONTINUATION frames included: the
// response headers, or the trailers that end the call. done is true when
// the call is over.
func (c *call) onHeaders(h frameHeader, p []byte) (done bool, err error) {
	p, err = unpad(h, p)
	if err != nil {
		return true, err
	}
	if h.Flags&flagPriority != 0 {
		if len(p) < 5 {
			return true, errors.New("PROTOCOL_ERROR: HEADERS too short for its priority")
		}
		p = p[5:]
	}
	endStream := h.Flags&flagEndStream != 0
	c.block = append(c.block[:0], p...)
	for h.Flags&flagEndHeaders == 0 {
		// RFC 9113 section 6.10: nothing but CONTINUATION on the same
		// stream until END_HEADERS.
		h, p, err = c.fr.next()
		if err != nil {
			return true, err
		}
		if h.Type != frameContinuation || h.Stream != 1 {
			return true, fmt.Errorf("PROTOCOL_ERROR: %s on stream %d inside a header block", frameName(h.Type), h.Stream)
		}
		if len(c.block)+len(p) > maxHeaderListSize {
			return true, fmt.Errorf("header block over the %d bytes advertised", maxHeaderListSize)
		}
		c.block = append(c.block, p...)
	}
	hb, err := decodeHeaders(c.dec, c.block)
	if err != nil {
		return true, err
	}
	if c.headers {
		if !endStream {
			return true, errors.New("PROTOCOL_ERROR: trailers without END_STREAM")
		}
		return true, c.finish(hb)
	}
	if len(hb.status) == 3 && hb.status[0] == '1' && !endStream {
		return false, nil // informational (1xx); the real headers follow
	}
	c.headers = true
	if hb.status != "200" {
		return true, fmt.Errorf("HTTP status %s, not a gRPC answer", excerpt.Quote(hb.status))
	}
	if endStream {
		return true, c.finish(hb) // Trailers-Only (PROTOCOL-HTTP2.md)
	}
	if !strings.HasPrefix(hb.contentType, "application/grpc") {
		return true, fmt.Errorf("content-type %s, not a gRPC answer", excerpt.Quote(hb.contentType))
	}
	return false, nil
}

// onData collects the one length-prefixed response message, at most
// maxMessage bytes. Its window is never refilled: the message and its
// padding fit in the 65,535 bytes of the initial window or the call fails.
func (c *call) onData(h frameHeader, p []byte) (done bool, err error) {
	if !c.headers {
		return true, errors.New("PROTOCOL_ERROR: DATA before the response headers")
	}
	p, err = unpad(h, p)
	if err != nil {
		return true, err
	}
	for len(p) > 0 {
		if c.full {
			return true, errors.New("more than one response message in a unary call")
		}
		if c.msg == nil {
			c.msg = make([]byte, 0, 5+maxMessage)
		}
		want := 5
		if len(c.msg) >= 5 {
			want = 5 + int(binary.BigEndian.Uint32(c.msg[1:5]))
		}
		n := min(want-len(c.msg), len(p))
		c.msg = append(c.msg, p[:n]...)
		p = p[n:]
		if len(c.msg) == 5 {
			if err := checkPrefix(c.msg); err != nil {
				return true, err
			}
		}
		if len(c.msg) >= 5 && len(c.msg) == 5+int(binary.BigEndian.Uint32(c.msg[1:5])) {
			c.full = true
		}
	}
	if h.Flags&flagEndStream != 0 {
		return true, errors.New("stream ended without trailers (no grpc-status)")
	}
	return false, nil
}

// checkPrefix checks a message's 5-byte prefix: compressed flag, length.
func checkPrefix(b []byte) error {
	switch b[0] {
	case 0:
	case 1:
		return errors.New("compressed response message, though tend offered no grpc-accept-encoding")
	default:
		return fmt.Errorf("invalid message flag 0x%02x", b[0])
	}
	if n := binary.BigEndian.Uint32(b[1:5]); n > maxMessage {
		return fmt.Errorf("response message of %d bytes, over the %d limit", n, maxMessage)
	}
	return nil
}

// finish judges the trailers (or a Trailers-Only answer).
func (c *call) finish(hb headerBlock) error {
	if !hb.hasGrpcStatus {
		return errors.New("stream ended without grpc-status")
	}
	code, err := parseGrpcStatus(hb.grpcStatus)
	if err != nil {
		return err
	}
	if code != 0 {
		return &StatusError{Code: code, Message: percentDecode(hb.grpcMessage)}
	}
	if !c.full {
		if len(c.msg) > 0 {
			return errors.New("response message truncated")
		}
		return errors.New("grpc-status OK without a response message")
	}
	s, err := decodeResponse(c.msg[5:])
	if err != nil {
		return fmt.Errorf("malformed HealthCheckResponse: %w", err)
	}
	if s != statusServing {
		return &UnhealthyError{Status: s}
	}
	return nil
}
