package grpc

import (
	"bufio"
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// fuzzConn is a net.Conn whose reads come from the fuzzer and whose
// writes vanish: it runs the client's whole read side without a socket.
type fuzzConn struct {
	net.Conn // nil: any method but these would panic and fail the fuzz
	r        *bytes.Reader
	read     int
}

func (c *fuzzConn) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}
func (c *fuzzConn) Write(p []byte) (int, error) { return len(p), nil }

func oneLineErr(t *testing.T, err error) {
	if err != nil && strings.ContainsAny(err.Error(), "\r\n\x00\x1b") {
		t.Fatalf("multi-line error %q", err)
	}
}

// seedAnswer is a well-formed answer: SETTINGS, headers, one message,
// trailers.
func seedAnswer(status byte, trailer string) []byte {
	var hb, tb bytes.Buffer
	e := hpack.NewEncoder(&hb)
	_ = e.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})                   // bytes.Buffer
	_ = e.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/grpc"}) // bytes.Buffer
	e = hpack.NewEncoder(&tb)
	_ = e.WriteField(hpack.HeaderField{Name: "grpc-status", Value: trailer}) // bytes.Buffer
	b := frame(frameSettings, 0, 0, []byte{0, 4, 0, 1, 0, 0})
	b = append(b, frame(framePing, 0, 0, make([]byte, 8))...)
	b = append(b, frame(frameHeaders, flagEndHeaders, 1, hb.Bytes())...)
	b = append(b, frame(frameData, 0, 1, []byte{0, 0, 0, 0, 2, 8, status})...)
	return append(b, frame(frameHeaders, flagEndHeaders|flagEndStream, 1, tb.Bytes())...)
}

// FuzzAnswer: the client's read side over any bytes a server can send:
// no panic, no more read than the frame limits allow, one-line errors,
// and success only for a SERVING message.
func FuzzAnswer(f *testing.F) {
	f.Add(seedAnswer(1, "0"))
	f.Add(seedAnswer(2, "0"))
	f.Add(seedAnswer(1, "5"))
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\n"))
	f.Add(append(frame(frameSettings, 0, 0, nil), frame(frameHeaders, 0, 1, nil)...))
	f.Add(append(frame(frameSettings, 0, 0, nil), frame(frameGoAway, 0, 0, []byte{0, 0, 0, 1, 0, 0, 0, 0})...))
	f.Fuzz(func(t *testing.T, in []byte) {
		nc := &fuzzConn{r: bytes.NewReader(in)}
		c := &call{nc: nc, dec: newDecoder()}
		c.fr.r = bufio.NewReaderSize(nc, 4096)
		c.fr.max = maxFrames
		err := c.run("127.0.0.1:1", "http", "svc", time.Second)
		if limit := maxFrames*(9+maxFrameSize) + 4096; nc.read > limit {
			t.Fatalf("read %d bytes, limit %d", nc.read, limit)
		}
		if c.fr.count > maxFrames || len(c.msg) > 5+maxMessage || len(c.block) > maxHeaderListSize {
			t.Fatalf("%d frames, message %d, block %d", c.fr.count, len(c.msg), len(c.block))
		}
		oneLineErr(t, err)
		if err == nil {
			if s, derr := decodeResponse(c.msg[5:]); !c.full || derr != nil || s != statusServing {
				t.Fatalf("success without a SERVING message: %x", c.msg)
			}
		}
	})
}

// FuzzFrameReader: frames read from any bytes stay within the limits.
func FuzzFrameReader(f *testing.F) {
	f.Add(seedAnswer(1, "0"))
	f.Add(append(frame(frameSettings, 0, 0, nil), 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 1))
	f.Add([]byte("HTTP/1.1 400 Bad Request\r\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		fr := &frameReader{r: bufio.NewReaderSize(bytes.NewReader(in), 4096), max: 8}
		for {
			h, p, err := fr.next()
			oneLineErr(t, err)
			if err != nil {
				break
			}
			if len(p) != int(h.Length) || h.Length > maxFrameSize || h.Stream > 1<<31-1 {
				t.Fatalf("frame %+v with %d bytes", h, len(p))
			}
			if fr.count > fr.max {
				t.Fatalf("%d frames read, limit %d", fr.count, fr.max)
			}
		}
	})
}

// FuzzHeaderBlock: the HPACK decoder with tend's limits: no panic,
// one-line errors, and a decoded block within the header list limit.
func FuzzHeaderBlock(f *testing.F) {
	var b bytes.Buffer
	e := hpack.NewEncoder(&b)
	_ = e.WriteField(hpack.HeaderField{Name: "grpc-status", Value: "5"})                  // bytes.Buffer
	_ = e.WriteField(hpack.HeaderField{Name: "grpc-message", Value: "unknown%20service"}) // bytes.Buffer
	f.Add(b.Bytes())
	f.Add(responseHeaders())
	f.Add([]byte{0x3f, 0xe1, 0x1f}) // dynamic table size update
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		hb, err := decodeHeaders(newDecoder(), in)
		oneLineErr(t, err)
		if n := len(hb.status) + len(hb.contentType) + len(hb.grpcStatus) + len(hb.grpcMessage); n > maxHeaderListSize {
			t.Fatalf("kept %d bytes of headers", n)
		}
		if err != nil && hb != (headerBlock{}) {
			t.Fatalf("error %v with fields %+v", err, hb)
		}
	})
}

// FuzzDecodeResponse: no panic, and a message that decodes keeps
// decoding when a status field is appended, to that status (the last
// value wins).
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{"", "\x08\x01", "\x08\x02", "\x12\x03abc\x08\x01", "\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", "\x0b", "\x08"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, err := decodeResponse(in)
		oneLineErr(t, err)
		if err != nil {
			return
		}
		if s, err := decodeResponse(append(in, 0x08, 0x02)); err != nil || s != 2 {
			t.Fatalf("%x + status 2 = %d, %v", in, s, err)
		}
	})
}
