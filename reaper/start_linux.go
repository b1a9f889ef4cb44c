package reaper

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// forkExec is syscall.ForkExec; tests replace it to play a kernel or a
// seccomp profile that refuses clone(CLONE_PIDFD).
var forkExec = syscall.ForkExec

// start starts cmd with syscall.ForkExec rather than cmd.Start, and
// subscribes to its exit under the lock, so that wait4(-1) cannot collect
// the child before it is known.
//
// Not os/exec: os.StartProcess spends about 200 µs, on tend's start-up
// path, on a throwaway clone that tests whether clone(CLONE_PIDFD) works.
// The reaper asks for the pidfd itself (SysProcAttr.PidFD) and owns it:
// Child.Signal uses it, Release closes it. Where it is refused, the child
// has none and is signalled by pid, which the lock makes safe.
//
// cmd is read as os/exec would: Path, Args (Path alone when empty), Env
// (tend's own when nil; duplicates resolved in favour of the later value),
// Dir, ExtraFiles, SysProcAttr, and stdio that must be nil (/dev/null) or
// an *os.File; cmd.Err, a failed lookup by exec.Command, is returned as it
// is. cmd.Process is not set: the Child is the handle, and cmd.Wait must
// never be called.
func (r *Reaper) start(cmd *exec.Cmd) (*Child, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	files := make([]*os.File, 0, 3+len(cmd.ExtraFiles))
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch f := v.(type) {
		case nil:
			null, err := openDevNull(i == 0)
			if err != nil {
				return nil, err
			}
			defer null.Close()
			files = append(files, null)
		case *os.File:
			if f == nil {
				return nil, ErrStdio
			}
			files = append(files, f)
		default:
			return nil, ErrStdio
		}
	}
	files = append(files, cmd.ExtraFiles...)
	attr := &syscall.ProcAttr{Dir: cmd.Dir, Env: environ(cmd), Files: make([]uintptr, len(files))}
	for i, f := range files {
		if f == nil {
			attr.Files[i] = ^uintptr(0) // closed in the child, as os/exec
			continue
		}
		attr.Files[i] = f.Fd()
	}
	sys := syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		sys = *cmd.SysProcAttr
	}
	attr.Sys = &sys
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aroundFork != nil {
		defer r.aroundFork()() // before the unlock: no other start sees the child's value
	}
	pid, pidfd, err := r.fork(cmd.Path, args, attr)
	runtime.KeepAlive(files)
	if err != nil {
		// On an exec failure ForkExec has already collected the child
		// itself; wait4(-1) could not run meanwhile because we hold mu.
		return nil, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}
	}
	c := &Child{Pid: pid, r: r, pidfd: pidfd, done: make(chan Exit, 1)}
	r.subs[pid] = c
	return c, nil
}

// fork runs forkExec asking for a pidfd, unless one was refused before.
// clone fails with EINVAL, ENOSYS or EPERM where a seccomp profile or an
// unusual kernel refuses CLONE_PIDFD (a kernel older than 5.2 ignores the
// flag and returns no pidfd, which is handled the same way): then the
// start is retried once without it, and no later start asks again. An exec
// failure with one of those errors is retried too, and fails again with
// the same error.
func (r *Reaper) fork(path string, args []string, attr *syscall.ProcAttr) (pid, pidfd int, err error) {
	pidfd = -1
	if !r.noPidfd.Load() {
		attr.Sys.PidFD = &pidfd
		pid, err = forkExec(path, args, attr)
		attr.Sys.PidFD = nil
		switch err {
		case nil:
			return pid, pidfd, nil
		case unix.EINVAL, unix.ENOSYS, unix.EPERM:
		default:
			return 0, -1, err
		}
		pidfd = -1
	}
	pid, err = forkExec(path, args, attr)
	if err == nil && !r.noPidfd.Load() {
		r.noPidfd.Store(true) // the flag was the trouble
	}
	return pid, -1, err
}

// openDevNull opens /dev/null for a nil stdin (read) or stdout/stderr
// (write), as os/exec does.
func openDevNull(read bool) (*os.File, error) {
	if read {
		return os.Open(os.DevNull)
	}
	return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
}

// environ is os/exec's environment for cmd: cmd.Env, or tend's own with
// PWD set to Dir when Dir is given; later duplicates win.
func environ(cmd *exec.Cmd) []string {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
		if cmd.Dir != "" {
			if pwd, err := filepath.Abs(cmd.Dir); err == nil {
				env = append(env, "PWD="+pwd)
			}
		}
	}
	return dedupEnv(env)
}

// dedupEnv keeps the last value of each variable, at the place of its
// last occurrence, as os/exec does.
func dedupEnv(env []string) []string {
	seen := make(map[string]bool, len(env))
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(env[i], "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, env[i])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
