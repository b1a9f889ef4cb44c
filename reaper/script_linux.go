package reaper

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"
)

// Shell is the interpreter of a script without "#!": glibc's _PATH_BSHELL.
const Shell = "/bin/sh"

// StartScript is Start with the execvp fallback that tini's users rely on:
// when the kernel refuses the program with ENOEXEC (a script without "#!"),
// it starts Shell with the program as its script, the way glibc's execvp
// does (maybe_script_execute in posix/execvpe.c): argv becomes
// ["/bin/sh", path, argv[1:]...], so the script's $0 is the path that was
// executed and the original argv[0] is dropped. musl's execvp has no such
// fallback, but tini's static builds link glibc, and POSIX asks for it.
//
// One difference from glibc, on purpose: a program whose first line holds a
// NUL byte (bash's test for a binary; every ELF file has one) is not handed
// to the shell, so a binary for another architecture keeps its clear "exec
// format error" (126) instead of the shell's noise about a garbled script.
// Where Shell is missing too, the error is still ENOEXEC (126), naming the
// shell's own failure, where glibc would report the shell's ENOENT (127).
//
// On a fallback cmd.Path and cmd.Args are rewritten to the shell's, so a
// caller's log line shows what actually runs.
//
// Only the app gets the fallback, as under tini. Hooks and exec probes in
// exec form do not: the kubelet runs them through the runtime's exec
// (CRI ExecSync, runc exec), which calls execve with no shell fallback, so
// a script without "#!" fails there with "exec format error", and here too
// (TestExecFormHookGetsNoShellFallback).
func (r *Reaper) StartScript(cmd *exec.Cmd) (*Child, error) { return ScriptWith(r.Start, cmd) }

// ScriptWith is StartScript with start in place of the reaper's Start: a
// start that wraps it (the socket-activation shim, package activation)
// keeps the same fallback.
func ScriptWith(start func(*exec.Cmd) (*Child, error), cmd *exec.Cmd) (*Child, error) {
	c, err := start(cmd)
	if !errors.Is(err, unix.ENOEXEC) || isBinary(cmd.Path) {
		return c, err
	}
	path, args := cmd.Path, cmd.Args
	if len(args) == 0 {
		args = []string{path}
	}
	cmd.Path, cmd.Args = Shell, append([]string{Shell, path}, args[1:]...)
	c, shErr := start(cmd)
	if shErr != nil {
		cmd.Path, cmd.Args = path, args
		// ENOEXEC stays the cause (126): the program is there and
		// cannot run; the shell's failure is the detail.
		return nil, fmt.Errorf("%w; running it with %s instead: %v", unix.ENOEXEC, Shell, shErr)
	}
	return c, nil
}

// binarySample is how much of a file bash reads to tell a binary from a
// script (execute_cmd.c, shell_execve: an 80-byte sample).
const binarySample = 80

// isBinary reports whether the file's first line, within its first 80
// bytes, holds a NUL byte: bash's check_binary_file (general.c). An unreadable file
// counts as not binary, and the shell reports what is wrong with it.
func isBinary(path string) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer func() { _ = unix.Close(fd) }() // read-only: nothing to report
	buf := make([]byte, binarySample)
	n, err := unix.Read(fd, buf)
	if err != nil || n <= 0 {
		return false
	}
	line, _, _ := bytes.Cut(buf[:n], []byte{'\n'})
	return bytes.IndexByte(line, 0) >= 0
}
