package logger

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/reaper"
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

// TestTraceStarted: the app's start, and in a new session what the peer's
// child says of its terminal, word for word.
func TestTraceStarted(t *testing.T) {
	for _, c := range []struct {
		name              string
		session, attached bool
		errno             unix.Errno
		want              string
	}{
		{"same session", false, false, unix.ENOTTY, "T Child spawned with PID 5.\n"},
		{"session, attached", true, true, 0, "T Child spawned with PID 5.\nT setsid complete.\n"},
		{"session, no tty", true, false, unix.ENOTTY, "T Child spawned with PID 5.\n" +
			"T Unable to attach to controlling tty (errno=25 Inappropriate ioctl for device).\nT setsid complete.\n"},
	} {
		var b bytes.Buffer
		l := New(&b, LevelError, Text)
		l.SetTrace("T ")
		l.TraceStarted(5, c.session, c.attached, c.errno)
		if b.String() != c.want {
			t.Errorf("%s: wrote %q, want %q", c.name, b.String(), c.want)
		}
	}
}

// TestExitsReport: Report traces what was observed since the last Report,
// after one SIGCHLD line, and nothing when nothing was observed.
func TestExitsReport(t *testing.T) {
	for _, c := range []struct {
		name string
		seen []reaper.Exit
		want string
	}{
		{"nothing collected", nil, ""},
		{"two exits", []reaper.Exit{{Pid: 7, Status: unix.WaitStatus(int(unix.SIGKILL))}, {Pid: 8, Status: unix.WaitStatus(3 << 8)}},
			"T Received signal 17.\nT A child with PID 7 was terminated by signal 9.\nT A child with PID 8 exited with exit status 3.\n"},
	} {
		var b bytes.Buffer
		l := New(&b, LevelError, Text)
		l.SetTrace("T ")
		var x Exits
		for _, e := range c.seen {
			x.Observe(e)
		}
		x.Report(l)
		if b.String() != c.want {
			t.Errorf("%s: wrote %q, want %q", c.name, b.String(), c.want)
		}
		b.Reset()
		x.Report(l) // forgotten once reported
		if b.Len() != 0 {
			t.Errorf("%s: a second Report wrote %q", c.name, b.String())
		}
	}
}
