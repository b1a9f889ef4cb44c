package lifecycle

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/reaper"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/terminal"
)

// The behaviours that act on the app's process group, on tend itself and
// on its terminal (plan.Behaviour's SuspendOnJobStop, TermGroupOnExit,
// ChdirRoot and the tty hand-off of plan.GroupSession). The signals they
// raise are handled in onSignal.

// termGroupOnExit is what tend does once the app exited: TERM to what is
// left of its group (TermGroupOnExit), then the exit with the app's code,
// which the drain and post-stop follow here. Without TermGroupOnExit the
// peer sends its TERM to the reaped pid itself, which can only reach a
// stranger: tend sends nothing there, and says what the peer says.
func (m *machine) termGroupOnExit(code int) {
	if m.cfg.TermGroupOnExit {
		m.w.signalExitedGroup(m.st.appPid, unix.SIGTERM)
	}
	m.log.Tracef("Forwarded signal %d to children.", unix.SIGTERM)
	m.log.Tracef("Child exited with status %d. Goodbye.", code)
}

func (l *Loop) suspend()                                   { signals.StopSelf() }
func (l *Loop) signalExitedGroup(pid int, sig unix.Signal) { reaper.SignalExitedGroup(pid, sig) }

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

// detachTerminal gives up tend's terminal (terminal.Detach), arms the
// hand-off when tend led the session, and reports whether the app should
// take stdin as its controlling terminal.
func (l *Loop) detachTerminal() terminal.Attach {
	a, led, trace := terminal.Detach()
	l.log.Tracef("%s", trace)
	if led {
		l.m.st.ignoreOnce.Arm()
	}
	return a
}
