package lifecycle

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/reaper"
)

// The app in a new session (plan.GroupSession, whose doc cites the source):
// tend gives up its controlling terminal, and the app, after setsid(),
// asks for stdin's terminal with ioctl(0, TIOCSCTTY, 0); when that fails,
// the trace says "Unable to attach to controlling tty" and the app runs
// anyway. The 0 matters: with 1 a process holding CAP_SYS_ADMIN steals a terminal
// another session holds. Go's SysProcAttr.Setctty always passes 1 and
// fails the start when the ioctl fails, so run from an interactive shell
// (a child of the session leader that holds the terminal) tend took the
// shell's terminal as root and could not start the app as anyone else.
// tend therefore asks Go to attach only a terminal no session holds
// (attachable), where 1 and 0 do the same, and starts again without it if
// the attach fails all the same (startCtty).

// attach is what the app does with stdin's terminal in a new session:
// take it (ok), or not, with the errno TIOCSCTTY with 0 would have met.
type attach struct {
	ok    bool
	errno unix.Errno
}

// detachTerminal gives up tend's controlling terminal before the app
// starts, so that the app's new session can take it,
// arms the hand-off when tend led the session, and reports whether the
// app should take stdin as its controlling terminal.
func (l *Loop) detachTerminal() attach {
	// TIOCGSID answers only for tend's own controlling terminal, so ask
	// which session holds it before letting go.
	sid, sidErr := unix.IoctlGetInt(0, unix.TIOCGSID)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCNOTTY, 0)
	switch {
	case errno != 0:
		l.log.Tracef("Unable to detach from controlling tty (errno=%d %s).", int(errno), reaper.Strerror(errno))
	case sid == os.Getpid():
		l.log.Tracef("Detached from controlling tty, ignoring the first SIGHUP and SIGCONT we receive.")
		l.m.st.ignoreOnce = []unix.Signal{unix.SIGHUP, unix.SIGCONT}
	default:
		l.log.Tracef("Detached from controlling tty, but was not session leader.")
	}
	return attachable(sidErr == nil && (errno != 0 || sid != os.Getpid()), terminalHeld)
}

// attachable decides whether the app's new session can take stdin's
// terminal without stealing it. ownHeld: stdin is the terminal tend had,
// and a session still holds it: the caller's, when tend did not lead it
// (TIOCNOTTY then detaches tend alone), or tend's own when TIOCNOTTY
// failed. A terminal that was not tend's is looked for among the
// processes tend can see (held).
func attachable(ownHeld bool, held func(fd int) bool) attach {
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err != nil {
		// ENOTTY, or EBADF with stdin closed: TIOCSCTTY's own error.
		errno := unix.ENOTTY
		_ = errors.As(err, &errno) // always an Errno from an ioctl
		return attach{errno: errno}
	}
	if ownHeld || held(0) {
		return attach{errno: unix.EPERM} // the kernel's answer without the steal
	}
	return attach{ok: true}
}

// terminalHeld reports whether a process tend can see has fd's terminal
// as its controlling terminal (tty_nr in /proc/PID/stat), that is whether
// a session holds it. One in a PID namespace tend cannot see is missed:
// startCtty's second try covers that, except that a root app with
// CAP_SYS_ADMIN in the host's user namespace takes the terminal then. An
// unreadable /proc counts as held: not attaching is the safe guess.
func terminalHeld(fd int) bool {
	// TIOCGDEV: the terminal behind /dev/console or /dev/tty, in
	// tty_nr's encoding; a stat of fd would give the alias's number.
	dev, err := unix.IoctlGetUint32(fd, unix.TIOCGDEV)
	if err != nil {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			return true
		}
		dev = unix.Major(st.Rdev)<<8 | unix.Minor(st.Rdev)&0xff | (unix.Minor(st.Rdev)&^0xff)<<12
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return true
	}
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited since the glob
		}
		if nr, ok := ttyNr(b); ok && nr != 0 && nr == int64(int32(dev)) {
			return true
		}
	}
	return false
}

// ttyNr is field 7 of a /proc/PID/stat line, read after the last ')' since
// the command name in field 2 can hold spaces and parentheses.
func ttyNr(stat []byte) (int64, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:]) // state ppid pgrp session tty_nr ...
	if len(f) < 5 {
		return 0, false
	}
	nr, err := strconv.ParseInt(string(f[4]), 10, 32)
	return nr, err == nil
}

// groupAttr is how the app starts for AppGroup: a new session, with
// stdin's terminal when it can take it, or tend's own process group (no
// Setpgid); nil for plan.GroupOwn, whose attributes appCommand chose.
func groupAttr(g plan.AppGroup, ctty attach) *syscall.SysProcAttr {
	switch g {
	case plan.GroupSession:
		return &syscall.SysProcAttr{Setsid: true, Setctty: ctty.ok, Ctty: 0}
	case plan.GroupShared:
		return &syscall.SysProcAttr{}
	}
	return nil
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

// startCtty starts the app. When a new session's attach fails with
// EPERM (a holder tend could not see, or stdin open for writing only and
// no CAP_SYS_ADMIN), it starts it again without, as the source goes on; an
// EPERM from elsewhere (exec, setuid) comes back on the second try.
func (l *Loop) startCtty(start func(*exec.Cmd) (*reaper.Child, error), cmd *exec.Cmd) (*reaper.Child, error) {
	app, err := reaper.ScriptWith(start, cmd)
	if err == nil || cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setctty || l.cfg.AppGroup != plan.GroupSession || !errors.Is(err, unix.EPERM) {
		return app, err
	}
	cmd.SysProcAttr.Setctty = false
	l.ctty = attach{errno: unix.EPERM}
	return reaper.ScriptWith(start, cmd)
}
