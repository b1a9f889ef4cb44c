package reaper

import (
	"errors"
	"fmt"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// Descendants lists every live process below pid, read from /proc. It is
// how a subreaper that is not PID 1 finds what to drain without touching
// anything outside its own tree.
func Descendants(pid int) ([]int, error) {
	parents, err := parentsByPid()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for p, pp := range parents {
		children[pp] = append(children[pp], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out, nil
}

func parentsByPid() (map[int]int, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("procfs: %w", err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("procfs: %w", err)
	}
	parents := make(map[int]int, len(procs))
	for _, p := range procs {
		if st, err := p.Stat(); err == nil { // an error means it exited while we listed
			parents[p.PID] = st.PPID
		}
	}
	return parents, nil
}

// SignalDescendants sends sig to every process below pid and returns how
// many it signalled. A pid read from /proc may be reused before the signal
// is sent, so each one is pinned with pidfd_open first and then checked to
// still have a parent inside the tree; the signal goes through the pidfd,
// so it can only reach the process that was checked.
func SignalDescendants(pid int, sig unix.Signal) (int, error) {
	pids, err := Descendants(pid)
	if err != nil {
		return 0, err
	}
	inTree := map[int]bool{pid: true}
	for _, p := range pids {
		inTree[p] = true
	}
	// One process that cannot be signalled must not shield the rest of
	// the tree from the drain: go on, and report every error at the end.
	n := 0
	var errs []error
	for _, p := range pids {
		sent, err := signalIfInTree(p, sig, inTree)
		if err != nil {
			errs = append(errs, err)
		}
		if sent {
			n++
		}
	}
	return n, errors.Join(errs...)
}

// pidfdOpen and pidfdSendSignal are the unix calls; tests replace them to
// play an old kernel or a seccomp profile that refuses the pidfd calls.
var (
	pidfdOpen       = unix.PidfdOpen
	pidfdSendSignal = unix.PidfdSendSignal
)

// refused says whether err means the kernel or a seccomp profile refuses a
// call (ENOSYS on an old kernel or from a profile; EPERM from a profile
// whose default action predates the call), rather than anything about the
// process.
func refused(err error) bool {
	return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM)
}

// signalIfInTree signals p if its parent is still in the tree. With a
// pidfd the check and the signal are about the same process. Where
// pidfd_open is refused (ENOSYS before Linux 5.3, EPERM or ENOSYS from a
// seccomp profile) it falls back to kill(2) right after the check: the
// window in which p could exit and its pid be reused is a few microseconds,
// against a drain that would otherwise signal nothing at all. A profile can
// also allow pidfd_open and refuse pidfd_send_signal (no kernel has that
// combination: the call came in 5.1, pidfd_open in 5.3); the pidfd still
// pins p, so kill(2) while it is open reaches the process that was checked.
func signalIfInTree(p int, sig unix.Signal, inTree map[int]bool) (bool, error) {
	fd, err := pidfdOpen(p, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return false, nil // it exited
	case err != nil:
		if pp, perr := parentOf(p); perr != nil || !inTree[pp] {
			return false, nil
		}
		return killPid(p, sig)
	}
	defer func() { _ = unix.Close(fd) }() // closing a pidfd cannot fail in a way we could act on
	if pp, err := parentOf(p); err != nil || !inTree[pp] {
		return false, nil
	}
	err = pidfdSendSignal(fd, sig, nil, 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ESRCH):
		return false, nil
	case refused(err):
		return killPid(p, sig)
	}
	return false, fmt.Errorf("pidfd_send_signal(%d): %w", p, err)
}

// killPid is the drain's fallback without pidfds: kill(2), where ESRCH
// means p exited since it was checked.
func killPid(p int, sig unix.Signal) (bool, error) {
	if err := unix.Kill(p, sig); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return false, nil
		}
		return false, fmt.Errorf("kill(%d): %w", p, err)
	}
	return true, nil
}

func parentOf(pid int) (int, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return st.PPID, nil
}
