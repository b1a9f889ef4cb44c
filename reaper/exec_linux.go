package reaper

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

// ExecError is a failure to start a program, with the shell's exit codes:
// 127 when the program is not found, 126 when it cannot be executed.
type ExecError struct {
	Prog string
	Code int
	Err  error
}

func (e *ExecError) Error() string { return fmt.Sprintf("exec %s failed: %v", e.Prog, e.Err) }
func (e *ExecError) Unwrap() error { return e.Err }

// ExitCode is what tend exits with: the shell's convention, as tini.
func (e *ExecError) ExitCode() int { return e.Code }

// LookPath resolves prog the way execvp does: a name with a slash is used as
// it is, anything else is searched on PATH, and a match that exists but
// cannot be executed yields EACCES (126) rather than "not found" (127).
func LookPath(prog string) (string, error) {
	if prog == "" {
		return "", &ExecError{Prog: `""`, Code: 127, Err: unix.ENOENT}
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
			return "", &ExecError{Prog: prog, Code: 127, Err: unix.ENOENT}
		}
		return "", &ExecError{Prog: prog, Code: 126, Err: unix.EACCES}
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if st, serr := os.Stat(filepath.Join(dir, prog)); serr == nil && !st.IsDir() {
			return "", &ExecError{Prog: prog, Code: 126, Err: unix.EACCES}
		}
	}
	return "", &ExecError{Prog: prog, Code: 127, Err: unix.ENOENT}
}

// StartError classifies an error from starting a resolved program. The
// app is started with StartScript, so a script without "#!" runs
// under /bin/sh, as tini's execvp runs it, and ENOEXEC reaches here only
// for a binary the kernel cannot run, or when /bin/sh is missing too.
func StartError(prog string, err error) error {
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
	return &ExecError{Prog: prog, Code: code, Err: unwrapPathError(err)}
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

// ExecFailure is the line for a program that cannot be run, format
// (plan.Behaviour.ExecFailLine) with the program and glibc's wording of the
// errno, and whether err is that failure.
func ExecFailure(err error, format string) (string, bool) {
	var e *ExecError
	if !errors.As(err, &e) {
		return "", false
	}
	errno := unix.ENOENT
	_ = errors.As(e.Err, &errno) // not an errno: ENOENT, the likeliest
	return fmt.Sprintf(format, e.Prog, Strerror(errno)), true
}

// Strerror is glibc's wording of errno, as a C program's perror prints it:
// Go's text is the same, but lower-case.
func Strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
