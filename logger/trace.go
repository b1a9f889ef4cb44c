package logger

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/reaper"
)

// A peer's trace (plan.Behaviour.Trace): its own lines, word for word, for
// its users' scripts; in order with tend's own lines, through the same queue.

// SetTrace turns the trace on, each line beginning with tag; "" turns it
// off. Call it before the Logger is shared.
func (l *Logger) SetTrace(tag string) { l.trace = tag }

// Tracef writes one trace line, the tag and the message, when the trace is
// on.
func (l *Logger) Tracef(format string, args ...any) {
	if l == nil || l.trace == "" {
		return
	}
	l.Raw(l.trace + fmt.Sprintf(format, args...))
}

// TraceExit is the trace's line for a reaped child: the signal that killed
// it, or its exit code.
func (l *Logger) TraceExit(pid int, status unix.WaitStatus, code int) {
	if status.Signaled() {
		l.Tracef("A child with PID %d was terminated by signal %d.", pid, status.Signal())
	} else {
		l.Tracef("A child with PID %d exited with exit status %d.", pid, code)
	}
}

// TraceStarted traces the app's start; in a new session (session), also
// what the peer's child says of its terminal (attached, or errno why not),
// which ours cannot say itself.
func (l *Logger) TraceStarted(pid int, session, attached bool, errno unix.Errno) {
	l.Tracef("Child spawned with PID %d.", pid)
	if session {
		if !attached {
			l.Tracef("Unable to attach to controlling tty (errno=%d %s).", int(errno), reaper.Strerror(errno))
		}
		l.Tracef("setsid complete.")
	}
}

// Exits keeps what one Reap collected (Observe, which the reaper calls
// under its lock) until Report traces it after the Reap, so the lines
// follow whatever the Reap itself logged. Only the loop's goroutine reaps.
type Exits struct{ seen []reaper.Exit }

// Observe keeps e for Report (reaper.Reaper.Observe).
func (x *Exits) Observe(e reaper.Exit) { x.seen = append(x.seen, e) }

// Report traces the SIGCHLD that woke the last Reap, then each exit, and
// forgets them. Only a Reap that collected something says so: tend also
// reaps without a SIGCHLD (the sweep after the start), and a SIGCHLD whose
// exits a sweep already took has nothing to report.
func (x *Exits) Report(l *Logger) {
	if len(x.seen) == 0 {
		return
	}
	l.Tracef("Received signal %d.", unix.SIGCHLD)
	for _, e := range x.seen {
		l.TraceExit(e.Pid, e.Status, e.Code())
	}
	x.seen = x.seen[:0]
}
