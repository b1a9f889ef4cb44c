package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// execError is a failure to start the app, with the shell's exit codes:
// 127 when the program is not found, 126 when it cannot be executed.
type execError struct {
	prog string
	code int
	err  error
}

func (e *execError) Error() string { return fmt.Sprintf("exec %s failed: %v", e.prog, e.err) }
func (e *execError) Unwrap() error { return e.err }

// ExitCode is what tend exits with: the shell's convention, as tini.
func (e *execError) ExitCode() int { return e.code }

// lookPath resolves prog the way execvp does: a name with a slash is used as
// it is, anything else is searched on PATH, and a match that exists but
// cannot be executed yields EACCES (126) rather than "not found" (127).
func lookPath(prog string) (string, error) {
	if prog == "" {
		return "", &execError{prog: `""`, code: 127, err: unix.ENOENT}
	}
	p, err := exec.LookPath(prog)
	if errors.Is(err, exec.ErrDot) {
		// execvp honours "." in PATH, and so does tini; so do we.
		err = nil
	}
	if err == nil {
		return p, nil
	}
	if strings.Contains(prog, "/") {
		if _, serr := os.Stat(prog); serr != nil {
			return "", &execError{prog: prog, code: 127, err: unix.ENOENT}
		}
		return "", &execError{prog: prog, code: 126, err: unix.EACCES}
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if st, serr := os.Stat(filepath.Join(dir, prog)); serr == nil && !st.IsDir() {
			return "", &execError{prog: prog, code: 126, err: unix.EACCES}
		}
	}
	return "", &execError{prog: prog, code: 127, err: unix.ENOENT}
}

// startError classifies an error from starting a resolved program. The
// app is started with reaper.StartScript, so a script without "#!" runs
// under /bin/sh, as tini's execvp runs it, and ENOEXEC reaches here only
// for a binary the kernel cannot run, or when /bin/sh is missing too.
func startError(prog string, err error) error {
	var errno syscall.Errno
	code := 1
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOENT:
			code = 127 // e.g. a script whose interpreter is missing
		case unix.EACCES, unix.ENOEXEC, unix.EISDIR, unix.EPERM:
			code = 126
		}
	} else if errors.Is(err, fs.ErrPermission) {
		code = 126
	}
	return &execError{prog: prog, code: code, err: unwrapPathError(err)}
}

// unwrapPathError drops os/exec's "fork/exec PATH:" prefix; the message
// already names the program.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// appCommand builds the app's command: argv, environment, working directory
// and stdio are inherited untouched. The app always leads its own process
// group; when stdin is tend's controlling terminal, that group is also made
// the terminal's foreground so Ctrl-C and job control reach the app.
func appCommand(path string, args []string) *exec.Cmd {
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
