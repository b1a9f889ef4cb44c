package terminal

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// Command builds the app's command: argv, environment, working directory
// and stdio are inherited untouched. The app always leads its own process
// group; when stdin is tend's controlling terminal, that group is also made
// the terminal's foreground so Ctrl-C and job control reach the app.
func Command(path string, args []string) *exec.Cmd {
	cmd := &exec.Cmd{
		Path:        path,
		Args:        args,
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if ownsTerminal(0) {
		cmd.SysProcAttr.Foreground = true
		cmd.SysProcAttr.Ctty = 0
	}
	return cmd
}

// ownsTerminal reports whether fd is a terminal that is tend's controlling
// terminal: TIOCGPGRP fails with ENOTTY otherwise, and Foreground would make
// the start fail.
func ownsTerminal(fd int) bool {
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return false
	}
	_, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil
}
