package grpc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseFrameHeader(t *testing.T) {
	for _, tc := range []struct {
		in   [9]byte
		want frameHeader
	}{
		{[9]byte{0, 0, 0, 4, 0, 0, 0, 0, 0}, frameHeader{0, frameSettings, 0, 0}},
		{[9]byte{0, 0x40, 0, 1, 5, 0, 0, 0, 1}, frameHeader{16384, frameHeaders, 5, 1}},
		{[9]byte{0xff, 0xff, 0xff, 0xfa, 0xff, 0xff, 0xff, 0xff, 0xff}, frameHeader{1<<24 - 1, 0xfa, 0xff, 1<<31 - 1}}, // reserved bit dropped
		{[9]byte{'H', 'T', 'T', 'P', '/', '1', '.', '1', ' '}, frameHeader{0x485454, 'P', '/', 0x312e3120}},
	} {
		if got := parseFrameHeader(tc.in); got != tc.want {
			t.Errorf("parseFrameHeader(%x) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	// appendFrame writes what parseFrameHeader reads.
	b := appendFrame(nil, frameData, flagEndStream, 0x80000003, []byte("abc"))
	if h := parseFrameHeader([9]byte(b[:9])); h != (frameHeader{3, frameData, flagEndStream, 3}) || string(b[9:]) != "abc" {
		t.Errorf("appendFrame round trip = %+v %q", h, b[9:])
	}
}

func TestUnpad(t *testing.T) {
	for _, tc := range []struct {
		flags uint8
		in    string
		want  string
		err   bool
	}{
		{0, "abc", "abc", false},
		{flagPadded, "\x02abcxx", "abc", false},
		{flagPadded, "\x00", "", false},
		{flagPadded, "", "", true},
		{flagPadded, "\x05ab", "", true},
	} {
		got, err := unpad(frameHeader{Type: frameData, Flags: tc.flags}, []byte(tc.in))
		if (err != nil) != tc.err || string(got) != tc.want {
			t.Errorf("unpad(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestEncodeRequest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"a", "\x0a\x01a"},
		{strings.Repeat("x", 200), "\x0a\xc8\x01" + strings.Repeat("x", 200)},
	} {
		if got := encodeRequest(tc.in); string(got) != tc.want {
			t.Errorf("encodeRequest(%.10q) = %q, want %.20q", tc.in, got, tc.want)
		}
	}
}

func TestDecodeResponse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		err  string
	}{
		{"", 0, ""},
		{"\x08\x01", 1, ""},
		{"\x08\x02", 2, ""},
		{"\x08\x01\x08\x03", 3, ""},    // the last value wins
		{"\x12\x03abc\x08\x01", 1, ""}, // unknown length-delimited field
		{"\x19\x01\x02\x03\x04\x05\x06\x07\x08\x08\x01", 1, ""}, // unknown fixed64
		{"\x25\x01\x02\x03\x04\x08\x01", 1, ""},                 // unknown fixed32
		{"\x10\xff\xff\x03\x08\x01", 1, ""},                     // unknown varint
		{"\x08\xff\xff\xff\xff\x0f", 0xffffffff, ""},
		{"\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 1 << 63, ""},
		{"\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02", 0, "malformed"}, // overflows 64 bits
		{"\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 0, "malformed"},
		{"\x08", 0, "truncated"},
		{"\x08\x80", 0, "truncated"},
		{"\x12\x05abc", 0, "truncated"},
		{"\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 0, "truncated"}, // length 2^64-1
		{"\x19\x01", 0, "truncated"},
		{"\x25\x01", 0, "truncated"},
		{"\x0a\x01\x01", 0, "wrong wire type"},
		{"\x0b", 0, "wire type"}, // group start
		{"\x0e", 0, "wire type"}, // wire type 6
		{"\x00\x01", 0, "field number"},
	} {
		got, err := decodeResponse([]byte(tc.in))
		if tc.err == "" && (err != nil || got != tc.want) {
			t.Errorf("decodeResponse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("decodeResponse(%q) = %d, %v; want error %q", tc.in, got, err, tc.err)
		}
	}
}

func TestFormatTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0n"},
		{-time.Second, "0n"},
		{1, "1n"},
		{99999999, "99999999n"},
		{100000000, "100000u"},
		{time.Second, "1000000u"},
		{100*time.Second + 1, "100001m"}, // rounded up, never less time
		{99999999 * time.Millisecond, "99999999m"},
		{100000 * time.Second, "100000S"},
		{1<<63 - 1, "2562048H"},
	} {
		got := formatTimeout(tc.in)
		if got != tc.want {
			t.Errorf("formatTimeout(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > 9 {
			t.Errorf("formatTimeout(%v) = %q: more than 8 digits", tc.in, got)
		}
	}
}

func TestPercentDecode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"a%20b", "a b"},
		{"%E2%82%AC", "€"},
		{"%0a%0D", "\n\r"},
		{"100%", "100%"},
		{"%4", "%4"},
		{"%zz%41", "%zzA"},
		{"%+1", "%+1"},
	} {
		if got := percentDecode(tc.in); got != tc.want {
			t.Errorf("percentDecode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseGrpcStatus(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"0", 0, true}, {"5", 5, true}, {"16", 16, true}, {"4294967295", 1<<32 - 1, true},
		{"", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"4294967296", 0, false}, {"1a", 0, false},
	} {
		got, err := parseGrpcStatus(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseGrpcStatus(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{codeName(0), "OK"}, {codeName(5), "NotFound"}, {codeName(12), "Unimplemented"},
		{codeName(16), "Unauthenticated"}, {codeName(17), "Code(17)"},
		{servingName(0), "UNKNOWN"}, {servingName(1), "SERVING"}, {servingName(2), "NOT_SERVING"},
		{servingName(3), "SERVICE_UNKNOWN"}, {servingName(4), "4"}, {servingName(1<<32 - 1), "-1"},
		{h2CodeName(0), "NO_ERROR"}, {h2CodeName(0xb), "ENHANCE_YOUR_CALM"}, {h2CodeName(0xd), "HTTP_1_1_REQUIRED"}, {h2CodeName(0xff), "0xff"},
		{frameName(frameContinuation), "CONTINUATION"}, {frameName(0xfa), "frame type 0xfa"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		err     error
		want    string
		timeout bool
	}{
		{&StatusError{Code: 5, Message: "unknown service"}, `health rpc probe failed: code = NotFound desc = "unknown service"`, false},
		{&StatusError{Code: 4, Message: "late"}, `timeout: health rpc did not complete in time (grpc-status DeadlineExceeded "late")`, true},
		{&StatusError{Code: 2, Message: "a\nb" + strings.Repeat("x", 200)}, `health rpc probe failed: code = Unknown desc = "a\nb` + strings.Repeat("x", 58) + `"…`, false},
		{&UnhealthyError{Status: 2}, `service unhealthy (responded with "NOT_SERVING")`, false},
		{&timeoutError{"timeout: x"}, "timeout: x", true},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if errors.Is(tc.err, context.DeadlineExceeded) != tc.timeout {
			t.Errorf("%q: errors.Is DeadlineExceeded = %v", tc.err, !tc.timeout)
		}
	}
}

func TestSettingsPayload(t *testing.T) {
	want := []byte{0, 2, 0, 0, 0, 0, 0, 5, 0, 0, 0x40, 0, 0, 6, 0, 0, 0x40, 0}
	if got := settings(); !bytes.Equal(got, want) {
		t.Fatalf("settings() = %x, want %x", got, want)
	}
}
