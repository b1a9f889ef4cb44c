// Command floor is the bench's Go floor: the least a Go PID 1 with tend's
// three fixed dependencies (golang.org/x/sys/unix, urfave/cli/v2 and
// prometheus/procfs) can cost. bench/run.sh compares tend's start-up, memory,
// threads and size with it, so it must do no more than an init has to:
//
//	floor [-s] [--] PROGRAM [ARGS...]
//
// It forks PROGRAM, forwards TERM and INT to it, reaps every child with
// wait4, and exits with PROGRAM's code (128+N for a death by signal N). -s
// is accepted and ignored, so it runs the same command lines as tini; the
// subreaper is always set. Each dependency gets one real call, so that its
// package initialisation and code are linked and paid for, as in tend.
// It is not an init to use: it does not drain orphans at exit, forward other
// signals or handle a tty.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/prometheus/procfs"
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	// urfave/cli: one flag, applied to the standard library's FlagSet
	// (not cli.App, which tend does not run for its flags either).
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	sub := &cli.BoolFlag{Name: "s", Usage: "accepted and ignored: the subreaper is always set"}
	if err := sub.Apply(fs); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 1
	}
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: floor [-s] [--] PROGRAM [ARGS...]")
		return 2
	}
	// x/sys/unix: orphans of the app's tree come here when not PID 1.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "floor: subreaper:", err)
	}
	// procfs: one stat of /proc, as an init checks that it can see its tree.
	if _, err := procfs.NewDefaultFS(); err != nil {
		fmt.Fprintln(os.Stderr, "floor: no /proc:", err)
	}

	// Register before the fork, so no exit and no stop is lost; separate
	// channels, so a burst of SIGCHLD cannot crowd out a TERM.
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, unix.SIGTERM, unix.SIGINT)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, unix.SIGCHLD)

	path, err := exec.LookPath(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 127
	}
	pid, err := syscall.ForkExec(path, fs.Args(), &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 126
	}
	for {
		select {
		case s := <-stop:
			_ = unix.Kill(pid, s.(unix.Signal)) // ESRCH: it is exiting; its SIGCHLD follows
		case <-chld:
			if code, done := reap(pid); done {
				return code
			}
		}
	}
}

// reap collects every exited child without blocking, and reports the
// app's exit code once the app is among them.
func reap(app int) (code int, done bool) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return code, done
		}
		if pid == app {
			code, done = ws.ExitStatus(), true
			if ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
		}
	}
}
