package signals

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDumbInitForwarded: dumb-init's set, 1..31 but KILL, STOP and CHLD,
// with PIPE only when tend has no sockets of its own and URG only when the
// runtime cannot have sent it.
func TestDumbInitForwarded(t *testing.T) {
	for _, c := range []struct {
		pipe, urg bool
		n         int
	}{{true, true, 28}, {false, true, 27}, {true, false, 27}, {false, false, 26}} {
		got := Catchable(c.pipe, c.urg)
		if len(got) != c.n || slices.Contains(got, unix.SIGPIPE) != c.pipe || slices.Contains(got, unix.SIGURG) != c.urg {
			t.Errorf("pipe %v urg %v: %v", c.pipe, c.urg, got)
		}
		for _, s := range []unix.Signal{unix.SIGKILL, unix.SIGSTOP, unix.SIGCHLD} {
			if slices.Contains(got, s) {
				t.Errorf("pipe %v urg %v: %s listed", c.pipe, c.urg, Name(s))
			}
		}
		for _, s := range []unix.Signal{unix.SIGSEGV, unix.SIGTTIN, unix.SIGTTOU, unix.SIGTSTP, unix.SIGXFSZ, unix.SIGPWR, unix.SIGSYS} {
			if !slices.Contains(got, s) {
				t.Errorf("pipe %v urg %v: %s missing", c.pipe, c.urg, Name(s))
			}
		}
	}
}
