// Package terminal is the app's side of the controlling terminal: the
// process group it leads and that group's foreground (command_linux.go),
// or, in a new session, the hand-off of stdin's terminal from tend to the
// app. The loop chooses which (plan.AppGroup); this package does it.
package terminal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// the attach fails all the same (Start).

// Attach is what the app does with stdin's terminal in a new session:
// take it (OK), or not, with the errno TIOCSCTTY with 0 would have met.
type Attach struct {
	OK    bool
	Errno unix.Errno
}

// Detach gives up tend's controlling terminal before the app starts, so
// that the app's new session can take it. It reports whether the app
// should take stdin as its controlling terminal, whether tend led the
// session (the kernel then sends tend's group one HUP and one CONT, which
// the caller must not pass on), and the trace's line for what happened.
func Detach() (a Attach, led bool, trace string) {
	// TIOCGSID answers only for tend's own controlling terminal, so ask
	// which session holds it before letting go.
	sid, sidErr := unix.IoctlGetInt(0, unix.TIOCGSID)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCNOTTY, 0)
	switch {
	case errno != 0:
		trace = fmt.Sprintf("Unable to detach from controlling tty (errno=%d %s).", int(errno), reaper.Strerror(errno))
	case sid == os.Getpid():
		led, trace = true, "Detached from controlling tty, ignoring the first SIGHUP and SIGCONT we receive."
	default:
		trace = "Detached from controlling tty, but was not session leader."
	}
	return attachable(sidErr == nil && (errno != 0 || sid != os.Getpid()), terminalHeld), led, trace
}

// attachable decides whether the app's new session can take stdin's
// terminal without stealing it. ownHeld: stdin is the terminal tend had,
// and a session still holds it: the caller's, when tend did not lead it
// (TIOCNOTTY then detaches tend alone), or tend's own when TIOCNOTTY
// failed. A terminal that was not tend's is looked for among the
// processes tend can see (held).
func attachable(ownHeld bool, held func(fd int) bool) Attach {
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err != nil {
		// ENOTTY, or EBADF with stdin closed: TIOCSCTTY's own error.
		errno := unix.ENOTTY
		_ = errors.As(err, &errno) // always an Errno from an ioctl
		return Attach{Errno: errno}
	}
	if ownHeld || held(0) {
		return Attach{Errno: unix.EPERM} // the kernel's answer without the steal
	}
	return Attach{OK: true}
}

// terminalHeld reports whether a process tend can see has fd's terminal
// as its controlling terminal (tty_nr in /proc/PID/stat), that is whether
// a session holds it. One in a PID namespace tend cannot see is missed:
// Start's second try covers that, except that a root app with
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

// ttyNr is field 7 of a /proc/PID/stat line (reaper.StatFields).
func ttyNr(stat []byte) (int64, bool) {
	f, _ := reaper.StatFields(stat) // state ppid pgrp session tty_nr ...; none without a command name
	if len(f) < 5 {
		return 0, false
	}
	nr, err := strconv.ParseInt(string(f[4]), 10, 32)
	return nr, err == nil
}

// GroupAttr is how the app starts for AppGroup: a new session, with
// stdin's terminal when it can take it, or tend's own process group (no
// Setpgid); nil for plan.GroupOwn, whose attributes Command chose.
func GroupAttr(g plan.AppGroup, ctty Attach) *syscall.SysProcAttr {
	switch g {
	case plan.GroupSession:
		return &syscall.SysProcAttr{Setsid: true, Setctty: ctty.OK, Ctty: 0}
	case plan.GroupShared:
		return &syscall.SysProcAttr{}
	}
	return nil
}

// Start starts the app with start (reaper.ScriptWith's fallback
// included). When a new session's attach fails with EPERM (a holder tend
// could not see, or stdin open for writing only and no CAP_SYS_ADMIN), it
// starts it again without, as the source goes on, and says so in ctty; an
// EPERM from elsewhere (exec, setuid) comes back on the second try.
func Start(start func(*exec.Cmd) (*reaper.Child, error), cmd *exec.Cmd, ctty *Attach) (*reaper.Child, error) {
	app, err := reaper.ScriptWith(start, cmd)
	if err == nil || cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setctty || !cmd.SysProcAttr.Setsid || !errors.Is(err, unix.EPERM) {
		return app, err
	}
	cmd.SysProcAttr.Setctty = false
	*ctty = Attach{Errno: unix.EPERM}
	return reaper.ScriptWith(start, cmd)
}
