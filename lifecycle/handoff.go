package lifecycle

import (
	"slices"

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
		l.m.st.ignoreOnce = []unix.Signal{unix.SIGHUP, unix.SIGCONT}
	}
	return a
}

// ignoreOnce reports whether recv is the first HUP or CONT after tend
// detached from the terminal of the session it led: the kernel sends both
// to tend's group then, and they must not reach the app (plan.GroupSession).
func (m *machine) ignoreOnce(recv unix.Signal) bool {
	i := slices.Index(m.st.ignoreOnce, recv)
	if i < 0 {
		return false
	}
	m.st.ignoreOnce = slices.Delete(m.st.ignoreOnce, i, i+1)
	m.log.Tracef("Ignoring tty hand-off signal %d.", recv)
	return true
}
