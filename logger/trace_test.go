package logger

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTraceLines: with a tag, Tracef and TraceExit write the peer's lines
// word for word, whatever the verbosity; without one, nothing.
func TestTraceLines(t *testing.T) {
	killed := unix.WaitStatus(int(unix.SIGKILL))
	exited := unix.WaitStatus(3 << 8)
	for _, c := range []struct {
		tag  string
		want string
	}{
		{"", ""},
		{"[dumb-init] ", "[dumb-init] Received signal 17.\n" +
			"[dumb-init] A child with PID 7 was terminated by signal 9.\n" +
			"[dumb-init] A child with PID 8 exited with exit status 3.\n"},
	} {
		var b bytes.Buffer
		l := New(&b, LevelError, Text)
		l.SetTrace(c.tag)
		l.Tracef("Received signal %d.", unix.SIGCHLD)
		l.TraceExit(7, killed, 137)
		l.TraceExit(8, exited, 3)
		if b.String() != c.want {
			t.Errorf("tag %q: wrote %q, want %q", c.tag, b.String(), c.want)
		}
	}
	var nilLog *Logger
	nilLog.Tracef("no logger: no line, no panic")
}
