package main_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileBody is what a probe peer answers: colour codes, a screen clear,
// NUL, VT, FF, DEL, a C1 CSI, a line separator and a byte of bad UTF-8.
const hostileBody = "\x1b[31mred\x1b[0m\x1b[2J\x00\v\f\x7f\u009b\u2028\xffend\n"

// hostileShown is the same, escaped as tend's text log shows it (the probe
// client itself already turns invalid UTF-8 in the body into "?").
const hostileShown = `\x1b[31mred\x1b[0m\x1b[2J\x00\x0b\x0c\x7f\u009b\u2028?end`

// rawControls reports the first byte or character in s that a terminal
// could act on, other than the newlines that end log lines.
func rawControls(s string) string {
	for _, raw := range []string{"\x1b", "\x00", "\v", "\f", "\x7f", "\u009b", "\u2028", "\xff", "\r"} {
		if strings.Contains(s, raw) {
			return raw
		}
	}
	return ""
}

// TestPeerBytesAreEscaped: a probe peer's body, quoted in tend's warning,
// in the termination message and in --check's error, arrives escaped: one
// harmless line each, ordinary text unchanged around it.
func TestPeerBytesAreEscaped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_, _ = io.WriteString(w, hostileBody) // the client may have gone
	}))
	defer srv.Close()

	msg := filepath.Join(t.TempDir(), "termination-log")
	code, _, errOut := runTend(t, opts{pid1: true}, "--termination-message-path", msg,
		"--live-probe", srv.URL+"/", "--probe-period", "20ms", "--", "sleep", "30")
	if code != 75 {
		t.Fatalf("exit %d, want 75\n%q", code, errOut)
	}
	if raw := rawControls(errOut); raw != "" {
		t.Errorf("raw %q in tend's log:\n%q", raw, errOut)
	}
	if !strings.Contains(errOut, "WARN: stop: liveness probe failed 3 times in a row: "+srv.URL+"/: status 500: "+hostileShown) {
		t.Errorf("the warning does not quote the body escaped:\n%q", errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !textLine.MatchString(line) {
			t.Errorf("not one of tend's lines: %q", line)
		}
	}
	b, err := os.ReadFile(msg)
	if err != nil || rawControls(string(b)) != "" || !strings.HasSuffix(string(b), "status 500: "+hostileShown) {
		t.Errorf("termination message %q (%v)", b, err)
	}

	code, out, errOut := runTend(t, opts{}, "--check", srv.URL+"/")
	if code != 1 || out != "" || rawControls(errOut) != "" || !strings.Contains(errOut, "status 500: "+hostileShown) ||
		strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !textLine.MatchString(errOut) {
		t.Errorf("--check: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
