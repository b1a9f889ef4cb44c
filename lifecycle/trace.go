package lifecycle

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/reaper"
)

// The trace (plan.Behaviour.Trace) and the exec-failure line
// (plan.Behaviour.ExecFailCode): a peer's own wording, for its users' scripts.

// Tracef writes one trace line, the tag and the message, when the trace is
// on; in order with tend's own lines, through the same queue.
func (l *Logger) Tracef(format string, args ...any) {
	if l == nil || l.trace == "" {
		return
	}
	l.Raw(l.trace + fmt.Sprintf(format, args...))
}

// warnAlways is a warning shown whatever the verbosity (a mode's default
// may be errors only): for a build setting the user never chose that
// changes what tend forwards, which nothing else would tell.
func (l *Logger) warnAlways(msg string) { l.WarnAlways(msg) }

// reportExits traces what the last Reap collected: the SIGCHLD that woke
// it, then each exit. Only a Reap that collected something says so: tend
// also reaps without a SIGCHLD (the sweep after the start), and a SIGCHLD
// whose exits a sweep already took has nothing to report.
func (l *Loop) reportExits() {
	if len(l.exits) == 0 {
		return
	}
	l.log.Tracef("Received signal %d.", unix.SIGCHLD)
	for _, e := range l.exits {
		if e.Status.Signaled() {
			l.log.Tracef("A child with PID %d was terminated by signal %d.", e.Pid, e.Status.Signal())
		} else {
			l.log.Tracef("A child with PID %d exited with exit status %d.", e.Pid, e.Code())
		}
	}
	l.exits = l.exits[:0]
}

// reapAll is every Reap the loop makes, with the trace's report.
func (l *Loop) reapAll() (bool, error) {
	none, err := l.reap.Reap()
	l.reportExits()
	return none, err
}

// observeExits keeps each exit for reportExits; called by the reaper
// under its lock, on the loop's goroutine (only the loop reaps).
func (l *Loop) observeExits(e reaper.Exit) { l.exits = append(l.exits, e) }

// traceStarted traces the app's start; in a new session, also what the
// peer's child says of its terminal, which ours cannot say itself.
func (l *Loop) traceStarted(pid int) {
	l.log.Tracef("Child spawned with PID %d.", pid)
	if l.cfg.AppGroup == plan.GroupSession {
		if !l.ctty.OK {
			l.log.Tracef("Unable to attach to controlling tty (errno=%d %s).", int(l.ctty.Errno), reaper.Strerror(l.ctty.Errno))
		}
		l.log.Tracef("setsid complete.")
	}
}

// ExecFailure is the line for a program that cannot be run, format
// (plan.Behaviour.ExecFailLine) with the program and glibc's wording of the
// errno, and whether err is that failure.
func ExecFailure(err error, format string) (string, bool) {
	var e *reaper.ExecError
	if !errors.As(err, &e) {
		return "", false
	}
	errno := unix.ENOENT
	_ = errors.As(e.Err, &errno) // not an errno: ENOENT, the likeliest
	return fmt.Sprintf(format, e.Prog, reaper.Strerror(errno)), true
}
