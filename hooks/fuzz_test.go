package hooks

import (
	"strings"
	"testing"

	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/target"
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

// FuzzParseAction checks every hook form: no panic, one-line errors, and an
// accepted value is a runnable action.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"sleep:5s", "http://127.0.0.1:1/x", `{"exec":{"command":["a"]}}`, `{"httpGet":{"port":"http"}}`,
		`{"sleep":{"seconds":1}}`, `{"httpGet":{"port":80,"httpHeaders":[{"name":"","value":"x"}]}}`, "{", "sleep:",
		"POST http://127.0.0.1:15020/quitquitquit", "POST https://unix:/run/a.sock:/q", "http://unix:/a:b", "POST http://unix:",
		`{"httpPost":{"port":4191,"path":"/shutdown","body":"x\u0000y"}}`, `{"httpPost":{"port":1,"scheme":"ftp"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAction(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("multi-line error for %q: %q", s, err)
			}
			return
		}
		switch a := a.(type) {
		case Command:
			if a.Argv == nil && strings.TrimSpace(a.Shell) == "" || a.Argv != nil && (len(a.Argv) == 0 || a.Argv[0] == "") {
				t.Fatalf("%q accepted as an empty command", s)
			}
		case Sleep:
			if a.D < 0 {
				t.Fatalf("%q: negative sleep", s)
			}
		case HTTPGet:
			if !strings.HasPrefix(a.URL, "http://") && !strings.HasPrefix(a.URL, "https://") {
				t.Fatalf("%q: URL %q", s, a.URL)
			}
			// What was accepted is what the client will send: the
			// same URL check, a method it knows, a body within bounds.
			if _, _, err := target.ParseHTTPURL(a.URL); err != nil || a.Method != "" && a.Method != "POST" || len(a.Body) > http1.MaxBody || a.Method == "" && a.Body != "" {
				t.Fatalf("%q accepted as %+v (%v)", s, a, err)
			}
		default:
			t.Fatalf("%q: unknown action %T", s, a)
		}
	})
}
