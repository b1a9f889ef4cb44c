package signals

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsJobStop reports whether sig is one of the terminal's stop signals,
// after which a peer stops itself too (plan.Behaviour.SuspendOnJobStop).
func IsJobStop(sig unix.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// StopSelf stops tend after it passed on a terminal stop signal
// (plan.Behaviour.SuspendOnJobStop cites the source); the SIGCONT that
// resumes it is then forwarded. As PID 1 the kernel discards the SIGSTOP.
func StopSelf() {
	_ = unix.Kill(os.Getpid(), unix.SIGSTOP) // cannot fail for oneself
}
