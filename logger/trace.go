package logger

import (
	"fmt"

	"golang.org/x/sys/unix"
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
