package lifecycle

import (
	"os"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"golang.org/x/sys/unix"
)

// The behaviours that act on the app's process group and on tend itself
// (plan.Behaviour's SuspendOnJobStop, TermGroupOnExit and ForwardCatchable).

// isJobStop: the terminal's stop signals (SuspendOnJobStop).
func isJobStop(sig unix.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// suspendAfterJobStop stops tend after it passed on a terminal stop
// signal (SuspendOnJobStop cites the source); the SIGCONT that resumes it is then
// forwarded. As PID 1 the kernel discards the SIGSTOP.
func (m *machine) suspendAfterJobStop(recv unix.Signal) {
	if !isJobStop(recv) {
		return
	}
	m.log.Tracef("Suspending self due to TTY signal.")
	m.w.suspend()
}

// termGroupOnExit is what tend does once the app exited: TERM to what is left of its group (TermGroupOnExit), then the exit with
// the app's code, which the drain and post-stop follow here. Without
// TermGroupOnExit the peer sends its TERM to the reaped pid itself, which
// can only reach a stranger: tend sends nothing there, and says what the
// peer says.
func (m *machine) termGroupOnExit(code int) {
	if m.cfg.TermGroupOnExit {
		m.w.signalExitedGroup(m.st.appPid, unix.SIGTERM)
	}
	m.log.Tracef("Forwarded signal %d to children.", unix.SIGTERM)
	m.log.Tracef("Child exited with status %d. Goodbye.", code)
}

// ownsSockets reports whether tend itself will write to sockets: a health
// endpoint, an HTTP, TCP or gRPC probe, or an HTTP hook. A PIPE raised by
// one of those writes cannot be told from a PIPE someone sent, so
// ForwardCatchable then leaves PIPE out (signals.Catchable).
func ownsSockets(cfg *plan.Config) bool {
	if cfg.HealthAddr != "" {
		return true
	}
	for _, c := range cfg.Checks {
		if _, ok := c.Handler.(probe.Command); !ok {
			return true
		}
	}
	for _, hs := range [][]hooks.Action{cfg.PreStart, cfg.PostStart, cfg.PreStop, cfg.PostStop, cfg.Reload} {
		for _, a := range hs {
			if _, ok := a.(hooks.HTTPGet); ok {
				return true
			}
		}
	}
	return false
}

// suspend is the world's self-suspend (SuspendOnJobStop).
func (l *Loop) suspend() {
	_ = unix.Kill(os.Getpid(), unix.SIGSTOP) // cannot fail for oneself
}

// signalExitedGroup signals the process group the reaped app led. Its pid
// cannot have been reused while the group has members: the kernel keeps a
// pid allocated as long as a process group carries its number, so
// kill(-pid) reaches the app's group or nothing (ESRCH).
func (l *Loop) signalExitedGroup(pid int, sig unix.Signal) {
	if pid <= 0 {
		return
	}
	_ = unix.Kill(-pid, sig) // ESRCH: the group is empty
}

// leaveDir changes tend to / once the app runs (ChdirRoot), so that tend
// never holds a mount busy; hooks and exec probes are started in the
// directory it left (childDir).
func (l *Loop) leaveDir() {
	if dir, err := os.Getwd(); err == nil {
		l.childDir = dir
	}
	if err := os.Chdir("/"); err != nil {
		l.log.Tracef("Unable to chdir(\"/\") (errno=%v)", err)
	}
}
