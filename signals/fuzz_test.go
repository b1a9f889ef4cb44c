package signals

import (
	"strings"
	"testing"
)

// FuzzParseRewrite checks signal names and rewrite rules: no panic, and an
// accepted rule names real signals.
func FuzzParseRewrite(f *testing.F) {
	for _, s := range []string{"TERM:QUIT", "15:3", "USR1:0", "RTMIN+1:SIGRTMAX-2", ":", "TERM", "99:1", "sigterm:sighup"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := ParseRewrite(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if from < 1 || from > 64 || to < 0 || to > 64 {
			t.Fatalf("%q gave %d:%d", s, from, to)
		}
	})
}
