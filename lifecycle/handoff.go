package lifecycle

import (
	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/terminal"
)

// The tty hand-off of a new session (plan.GroupSession; package terminal):
// the terminal's side is the terminal package's, the signals it raises are
// the machine's.

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

// ignoreOnce reports whether recv is the first HUP or CONT after tend
// detached from the terminal of the session it led (terminal.HandOff).
func (m *machine) ignoreOnce(recv unix.Signal) bool {
	if !m.st.ignoreOnce.Ignore(recv) {
		return false
	}
	m.log.Tracef("Ignoring tty hand-off signal %d.", recv)
	return true
}
