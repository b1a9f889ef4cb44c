package lifecycle

import (
	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/reaper"
)

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
		l.log.TraceExit(e.Pid, e.Status, e.Code())
	}
	l.exits = l.exits[:0]
}

// reapNow is every Reap the loop makes, with the trace's report.
func (l *Loop) reapNow() (bool, error) {
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
