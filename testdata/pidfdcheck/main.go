// Command pidfdcheck is a small, static test program for the seccomp tests:
// it shows, from inside a container or a filtered process, which pidfd
// calls the seccomp profile refuses, and whether a process is gone. It is
// built with CGO_ENABLED=0 so it runs in scratch images.
//
//	pidfdcheck probe      print NAME=RESULT for pidfd_open, pidfd_send_signal,
//	                      pidfd_getfd, waitid(P_PIDFD) and waitid(P_ALL)
//	pidfdcheck gone FILE  exit 0 if the pid in FILE is gone (or a zombie), 1 if it runs
//
// probe calls pidfd_open on itself, and the other calls on that pidfd, or
// on fd -1 if there is none: the kernel answers a bad fd with EBADF or
// EINVAL, so those (and ok, or ECHILD from waitid) mean that the call reached
// the kernel, and ENOSYS or EPERM that seccomp refused it.
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pidfdcheck probe | gone FILE")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "probe":
		probe()
	case "gone":
		if len(os.Args) < 3 {
			fmt.Fprintln(os.Stderr, "usage: pidfdcheck gone FILE")
			os.Exit(2)
		}
		os.Exit(gone(os.Args[2]))
	default:
		fmt.Fprintln(os.Stderr, "pidfdcheck: unknown mode", os.Args[1])
		os.Exit(2)
	}
}

func probe() {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	fmt.Printf("pidfd_open=%s\n", result(err))
	if err != nil {
		fd = -1
	}
	fmt.Printf("pidfd_send_signal=%s\n", result(unix.PidfdSendSignal(fd, 0, nil, 0)))
	dup, err := unix.PidfdGetfd(fd, 1, 0) // our own stdout
	if err == nil {
		_ = unix.Close(dup) // a copy of stdout, taken only to see that the call works
	}
	fmt.Printf("pidfd_getfd=%s\n", result(err))
	var info unix.Siginfo
	// Not our own parent: ECHILD is the kernel's answer.
	fmt.Printf("waitid_pidfd=%s\n", result(unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil)))
	// No children: ECHILD is the kernel's answer, so P_ALL still works.
	fmt.Printf("waitid_all=%s\n", result(unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG, nil)))
}

// result names err's errno, or "ok".
func result(err error) string {
	var errno unix.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// gone reports whether the process whose pid FILE holds has ended: no
// /proc entry, or a zombie waiting for its parent.
func gone(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad pid:", err)
		return 2
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		fmt.Printf("gone pid=%d\n", pid)
		return 0
	}
	s := string(stat)
	if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
		fmt.Printf("gone pid=%d (zombie)\n", pid)
		return 0
	}
	fmt.Printf("alive pid=%d\n", pid)
	return 1
}
