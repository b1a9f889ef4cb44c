// Command listenapp is a socket-activated test app: a real sd_listen_fds
// consumer, with the checks libsystemd makes (sd-daemon.c, sd_listen_fds
// and sd_is_socket), so that tend's tests see what such an app sees.
//
//	listenapp serve        take the sockets as sd_listen_fds(1) does, accept one
//	                       connection on fd 3, answer with what it saw, exit 0;
//	                       exit 3, saying why on stderr, when the offer is not its own
//	listenapp check FILE   write what a hook or probe inherits (LISTEN_* and
//	                       what fd 3 is) to FILE, by rename, and exit 0
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: listenapp serve | check FILE")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		os.Exit(serve())
	case "check":
		if len(os.Args) < 3 {
			os.Exit(2)
		}
		os.Exit(check(os.Args[2]))
	}
	os.Exit(2)
}

// listenFds is sd_listen_fds(1): the count of sockets from fd 3 that are
// this process's, or an error saying why none is.
func listenFds() (int, string, error) {
	defer func() {
		for _, k := range []string{"LISTEN_PID", "LISTEN_PIDFDID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
			_ = os.Unsetenv(k) // as sd_listen_fds(1): a failed Unsetenv leaves a variable, harmless here
		}
	}()
	e, ok := os.LookupEnv("LISTEN_PID")
	if !ok {
		return 0, "", fmt.Errorf("LISTEN_PID unset")
	}
	pid, err := strconv.Atoi(e)
	if err != nil || pid <= 0 {
		return 0, "", fmt.Errorf("LISTEN_PID=%q does not parse", e)
	}
	if pid != os.Getpid() {
		return 0, "", fmt.Errorf("LISTEN_PID=%d is not my pid %d", pid, os.Getpid())
	}
	n, err := strconv.Atoi(os.Getenv("LISTEN_FDS"))
	if err != nil || n <= 0 {
		return 0, "", fmt.Errorf("LISTEN_FDS=%q", os.Getenv("LISTEN_FDS"))
	}
	for fd := 3; fd < 3+n; fd++ {
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC); errno != 0 {
			return 0, "", fmt.Errorf("fd %d: %v", fd, errno)
		}
	}
	return n, os.Getenv("LISTEN_FDNAMES"), nil
}

// isListeningSocket is sd_is_socket(fd, 0, SOCK_STREAM, 1).
func isListeningSocket(fd int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("fstat(%d): %v", fd, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return fmt.Errorf("fd %d is not a socket (mode %o)", fd, st.Mode)
	}
	typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE)
	if err != nil || typ != syscall.SOCK_STREAM {
		return fmt.Errorf("fd %d: SO_TYPE %d, %v", fd, typ, err)
	}
	acc, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN)
	if err != nil || acc != 1 {
		return fmt.Errorf("fd %d is not listening: %d, %v", fd, acc, err)
	}
	return nil
}

func serve() int {
	listenPid := os.Getenv("LISTEN_PID")
	n, names, err := listenFds()
	if err == nil {
		err = isListeningSocket(3)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "listenapp: no socket activation: %v\n", err)
		return 3
	}
	c, _, err := syscall.Accept(3)
	if err != nil {
		fmt.Fprintf(os.Stderr, "listenapp: accept: %v\n", err)
		return 4
	}
	msg := fmt.Sprintf("pid=%d\nlisten_pid=%s\nfds=%d\nnames=%s\nuid=%d\n", os.Getpid(), listenPid, n, names, os.Getuid())
	_, _ = syscall.Write(c, []byte(msg)) // the test reads it or fails on its own
	_ = syscall.Close(c)
	return 0
}

func check(file string) int {
	var b strings.Builder
	for _, k := range []string{"LISTEN_PID", "LISTEN_PIDFDID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		if v, ok := os.LookupEnv(k); ok {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
	}
	// What fd 3 is, if anything: the runtime may have opened a file of
	// its own there by now, but not a socket.
	fd3, err := os.Readlink("/proc/self/fd/3")
	if err != nil {
		fd3 = "none"
	}
	fmt.Fprintf(&b, "fd3=%s\n", fd3)
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(tmp, file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
