package probe

import (
	"strings"
	"testing"
)

// FuzzParseSpec: no panic, one-line errors.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x", "tcp://h:1", "tcp://", "http://[::1", "exit 0", `["a"]`, "[", "", "grpc://h:1/a.B/c", "grpc://", "grpc://h:1/s?q#f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseSpec(s); err != nil && strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
