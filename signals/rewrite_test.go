package signals

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCheckRewriteFrom: a rule's FROM must be a signal that can reach the
// rewrite (one tend forwards, or the stop signal); any other is refused
// with the reason it never arrives.
func TestCheckRewriteFrom(t *testing.T) {
	for _, c := range []struct {
		from, stop unix.Signal
		why        string // "" when accepted
	}{
		{unix.SIGTERM, unix.SIGTERM, ""},
		{unix.SIGINT, unix.SIGTERM, ""},
		{unix.SIGUSR1, unix.SIGTERM, ""},
		{unix.SIGWINCH, unix.SIGTERM, ""},
		{35, unix.SIGTERM, ""},
		{64, unix.SIGTERM, ""},
		{unix.SIGPWR, unix.SIGPWR, ""}, // the stop signal is caught, whatever it is
		{unix.SIGKILL, unix.SIGTERM, "cannot be caught"},
		{unix.SIGSTOP, unix.SIGTERM, "cannot be caught"},
		{unix.SIGCHLD, unix.SIGTERM, "reap"},
		{unix.SIGURG, unix.SIGTERM, "preempt"},
		{unix.SIGPIPE, unix.SIGTERM, "own writes"},
		{unix.SIGPROF, unix.SIGTERM, "profiler"},
		{32, unix.SIGTERM, "libc"},
		{33, unix.SIGTERM, "libc"},
		{34, unix.SIGTERM, "libc"},
		{unix.SIGSEGV, unix.SIGTERM, "fault signal"},
		{unix.SIGBUS, unix.SIGTERM, "fault signal"},
		{unix.SIGFPE, unix.SIGTERM, "fault signal"},
		{unix.SIGILL, unix.SIGTERM, "fault signal"},
		{unix.SIGTRAP, unix.SIGTERM, "fault signal"},
		{unix.SIGABRT, unix.SIGTERM, "fault signal"},
		{unix.SIGSYS, unix.SIGTERM, "fault signal"},
		{unix.SIGSTKFLT, unix.SIGTERM, "fault signal"},
		// Forwarded (gunicorn's worker count): rewritable.
		{unix.SIGTTIN, unix.SIGTERM, ""},
		{unix.SIGTTOU, unix.SIGTERM, ""},
		{unix.SIGXFSZ, unix.SIGTERM, ""},
		{unix.SIGIO, unix.SIGTERM, ""},
		{unix.SIGPWR, unix.SIGTERM, ""},
	} {
		err := CheckRewriteFrom(c.from, c.stop)
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%s (stop %s): %v", Name(c.from), Name(c.stop), err)
		case c.why != "" && (err == nil || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), Name(c.from))):
			t.Errorf("%s: %v; want an error naming it and saying %q", Name(c.from), err, c.why)
		}
	}
	// Every signal 1..64 is either rewritable or refused with a reason.
	for n := 1; n <= rtMax; n++ {
		if err := CheckRewriteFrom(unix.Signal(n), unix.SIGTERM); err != nil && len(err.Error()) < 20 {
			t.Errorf("%d: terse reason %q", n, err)
		}
	}
}
