package probe

import (
	"strings"
	"testing"
)

// FuzzParseSpec: no panic, one-line errors.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x", "tcp://h:1", "tcp://", "http://[::1", "exit 0", `["a"]`, "[", "", "grpc://h:1/a.B/c", "grpc://", "grpc://h:1/s?q#f",
		"grpcs://h:1/s", "grpc://unix:/run/g.sock:/a.B", "grpcs://unix:/a", "tcp://unix:/run/db.sock", "http://unix:/a.sock:/x?y", "POST http://h:1/", "grpc://unix:/a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseSpec(s)
		if err != nil && strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
			t.Fatalf("multi-line error %q", err)
		}
		// A gRPC or TCP target reads back as itself, unix socket and all:
		// what is shown in a reason is what is dialed.
		switch h := h.(type) {
		case GRPC, TCP:
			if again, err := ParseSpec(h.String()); err != nil || again != h {
				t.Fatalf("%q -> %#v -> %q -> %#v, %v", s, h, h.String(), again, err)
			}
		}
	})
}
