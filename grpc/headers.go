package grpc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2/hpack"

	"github.com/tend-init/tend/internal/excerpt"
)

// maxHeaderListSize is the SETTINGS_MAX_HEADER_LIST_SIZE tend advertises
// and enforces, counted as RFC 9113 section 6.5.2 does (name + value + 32
// per field), and also the bound on one compressed header block across its
// HEADERS and CONTINUATION frames. A gRPC answer's headers are a few
// hundred bytes.
const maxHeaderListSize = 16 << 10

// headerBlock holds the fields of a response header block tend reads.
type headerBlock struct {
	status, contentType, grpcStatus, grpcMessage string
	hasGrpcStatus                                bool
}

// newDecoder returns the one HPACK decoder of a connection: the dynamic
// table lives across both header blocks of the answer.
func newDecoder() *hpack.Decoder {
	d := hpack.NewDecoder(4096, nil) // SETTINGS_HEADER_TABLE_SIZE's default, which tend keeps
	d.SetMaxStringLength(maxHeaderListSize)
	return d
}

// decodeHeaders decodes one complete header block, bounded by
// maxHeaderListSize decoded: indexed fields make a small block decode to
// much more, so the compressed size alone is no bound.
func decodeHeaders(d *hpack.Decoder, block []byte) (headerBlock, error) {
	var hb headerBlock
	size, over := 0, false
	d.SetEmitEnabled(true)
	d.SetEmitFunc(func(f hpack.HeaderField) {
		size += int(f.Size())
		if size > maxHeaderListSize {
			over = true
			d.SetEmitEnabled(false) // nothing more is kept; the block is refused below
			return
		}
		switch f.Name {
		case ":status":
			hb.status = f.Value
		case "content-type":
			hb.contentType = f.Value
		case "grpc-status":
			hb.grpcStatus, hb.hasGrpcStatus = f.Value, true
		case "grpc-message":
			hb.grpcMessage = f.Value
		}
	})
	if _, err := d.Write(block); err != nil {
		return headerBlock{}, fmt.Errorf("COMPRESSION_ERROR: %s", excerpt.Quote(err.Error()))
	}
	if err := d.Close(); err != nil {
		return headerBlock{}, fmt.Errorf("COMPRESSION_ERROR: %s", excerpt.Quote(err.Error()))
	}
	if over {
		return headerBlock{}, fmt.Errorf("header list over the %d bytes advertised", maxHeaderListSize)
	}
	return hb, nil
}

// encodeRequestHeaders is the request's header block, the fields and order
// grpc-go sends (see the gRPC HTTP/2 protocol spec, PROTOCOL-HTTP2.md).
func encodeRequestHeaders(authority, scheme string, timeout time.Duration) []byte {
	var b bytes.Buffer
	e := hpack.NewEncoder(&b)
	for _, f := range [...][2]string{
		{":method", "POST"},
		{":scheme", scheme},
		{":path", "/grpc.health.v1.Health/Check"},
		{":authority", authority},
		{"content-type", "application/grpc"},
		{"user-agent", "tend"},
		{"te", "trailers"},
		{"grpc-timeout", formatTimeout(timeout)},
	} {
		_ = e.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}) // writes to a bytes.Buffer, which cannot fail
	}
	return b.Bytes()
}

// formatTimeout is a grpc-timeout value: at most 8 digits and a unit
// (PROTOCOL-HTTP2.md: TimeoutValue → {positive integer as ASCII string of
// at most 8 digits}), the finest unit that fits, rounded up so that the
// server never gets less time than the probe allows.
func formatTimeout(d time.Duration) string {
	if d <= 0 {
		return "0n"
	}
	for _, u := range [...]struct {
		d time.Duration
		c string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}, {time.Hour, "H"}} {
		v := d / u.d
		if d%u.d != 0 {
			v++
		}
		if v <= 99999999 {
			return strconv.FormatInt(int64(v), 10) + u.c
		}
	}
	return "99999999H" // unreachable: the largest Duration is about 2.6e6 hours
}

// percentDecode decodes grpc-message (PROTOCOL-HTTP2.md: Percent-Encoded);
// a % not followed by two hex digits is kept as it is, as grpc-go does.
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseGrpcStatus reads grpc-status: a decimal code of a few digits.
func parseGrpcStatus(s string) (uint32, error) {
	if s == "" || len(s) > 10 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("malformed grpc-status %s", excerpt.Quote(s))
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("malformed grpc-status %s", excerpt.Quote(s))
	}
	return uint32(v), nil
}
