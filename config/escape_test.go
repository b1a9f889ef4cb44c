package config

import (
	"io"
	"strings"
	"testing"
)

// TestUsageErrorEscaped: a usage error that repeats the command line (the
// flag package's own message names an unknown flag as given) is one line
// with every control byte escaped, in JSON as in text, not only the line
// breaks.
func TestUsageErrorEscaped(t *testing.T) {
	_, _, err := Parse([]string{"tend", "--\x1b[2Jx\ty", "app"}, envOf(), "test", io.Discard)
	if err == nil {
		t.Fatal("accepted")
	}
	if strings.ContainsAny(err.Error(), "\x1b\t") || !strings.Contains(err.Error(), `\x1b[2Jx\ty`) {
		t.Fatalf("not escaped: %q", err)
	}
}
