package hooks

import (
	"strings"
	"testing"
)

// FuzzParse checks hook specs in both forms: no panic, one-line errors, and
// an accepted value is always runnable (a shell string or a non-empty argv).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"echo hi", `["/bin/true"]`, `["a","b,c"]`, "[", `[1]`, `[]`, `[""]`, " ", `["\u0000"]`, `[ "x" ] trailing`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("multi-line error for %q: %q", s, err)
			}
			return
		}
		if c.Argv == nil && strings.TrimSpace(c.Shell) == "" {
			t.Fatalf("%q accepted as an empty command", s)
		}
		if c.Argv != nil && (len(c.Argv) == 0 || c.Argv[0] == "") {
			t.Fatalf("%q accepted with an empty program", s)
		}
	})
}
