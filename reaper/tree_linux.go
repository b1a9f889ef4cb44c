package reaper

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

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

// parentsByPid maps every process in /proc to its parent. It reads /proc
// with raw system calls, like everything else the event loop does: a raw
// call never makes the runtime hand the loop's P to another thread, so a
// drain cannot need a thread that a full pid limit would refuse
// (lifecycle's thread budget). Reading /proc does not block for long.
func parentsByPid() (map[int]int, error) {
	fd, errno := rawOpen("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if errno != 0 {
		return nil, fmt.Errorf("open /proc: %w", errno)
	}
	defer rawClose(fd)
	var pids []int
	buf := make([]byte, 16<<10)
	for {
		n, _, errno := unix.RawSyscall(unix.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return nil, fmt.Errorf("getdents64 /proc: %w", errno)
		}
		if n == 0 {
			break
		}
		_, _, names := unix.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			if pid, err := strconv.Atoi(name); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	parents := make(map[int]int, len(pids))
	var stat [512]byte
	for _, pid := range pids {
		if pp, err := parentFromStat(pid, stat[:]); err == nil { // an error means it exited while we listed
			parents[pid] = pp
		}
	}
	return parents, nil
}

// CountDescendants is how many live processes are below pid (Descendants);
// -1 when /proc cannot tell.
func CountDescendants(pid int) int {
	pids, err := Descendants(pid)
	if err != nil {
		return -1
	}
	return len(pids)
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

// pidfdOpen is pidfd_open(pid, flags) as a raw system call (it cannot
// block); tests replace it to play an old kernel or a seccomp profile that
// refuses the pidfd calls.
var pidfdOpen = func(pid, flags int) (int, error) {
	fd, _, errno := unix.RawSyscall(unix.SYS_PIDFD_OPEN, uintptr(pid), uintptr(flags), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
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
	defer rawClose(fd)
	if pp, err := parentOf(p); err != nil || !inTree[pp] {
		return false, nil
	}
	switch err := pidfdSendSignal(fd, sig); err {
	case 0:
		return true, nil
	case unix.ESRCH:
		return false, nil
	case unix.ENOSYS, unix.EPERM: // refused by a seccomp profile
		return killPid(p, sig)
	default:
		return false, fmt.Errorf("pidfd_send_signal(%d): %w", p, err)
	}
}

// killPid is the drain's fallback without pidfds: kill(2), where ESRCH
// means p exited since it was checked.
func killPid(p int, sig unix.Signal) (bool, error) {
	switch err := rawKill(p, sig); err {
	case 0:
		return true, nil
	case unix.ESRCH:
		return false, nil
	default:
		return false, fmt.Errorf("kill(%d): %w", p, err)
	}
}

func parentOf(pid int) (int, error) {
	var stat [512]byte
	return parentFromStat(pid, stat[:])
}

// parentFromStat reads the parent's pid, the fourth field of
// /proc/PID/stat, after the command name in parentheses (which may itself
// hold spaces and parentheses).
func parentFromStat(pid int, buf []byte) (int, error) {
	s, err := ReadRaw("/proc/"+strconv.Itoa(pid)+"/stat", buf)
	if err != nil {
		return 0, err
	}
	f, ok := StatFields(s) // state, ppid, ...
	if !ok {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(string(f[1]))
}

// StatFields are the fields of a /proc/PID/stat line after the command
// name, which may itself hold spaces and parentheses, so it ends at the
// last ')': state, ppid, pgrp, session, tty_nr, ... ok is false when the
// line has no command name.
func StatFields(stat []byte) (f [][]byte, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, false
	}
	return bytes.Fields(stat[i+1:]), true
}

// ReadRaw reads the file at path into buf, up to its length, with raw
// system calls (openat, read, close), and returns what it read. It is for
// the small /proc files that the event loop reads: a raw call never makes
// the runtime hand the loop's P to another thread, so it never needs a
// thread that a full pid limit would refuse (lifecycle's thread budget).
func ReadRaw(path string, buf []byte) ([]byte, error) {
	fd, errno := rawOpen(path, unix.O_RDONLY|unix.O_CLOEXEC)
	if errno != 0 {
		return nil, errno
	}
	defer rawClose(fd)
	n := 0
	for n < len(buf) {
		r, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[n])), uintptr(len(buf)-n))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return nil, errno
		}
		if r == 0 {
			break
		}
		n += int(r)
	}
	return buf[:n], nil
}

// KillAll is kill(-1, sig) as a raw system call: as PID 1 it reaches every
// process in the namespace but tend, which is PID 1's drain. Raw, for the
// same reason as ReadRaw.
func KillAll(sig unix.Signal) error {
	if errno := rawKill(-1, sig); errno != 0 {
		return errno
	}
	return nil
}

// rawOpen is openat(AT_FDCWD, path, flags) as a raw system call.
func rawOpen(path string, flags int) (int, unix.Errno) {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return -1, unix.EINVAL
	}
	cwd := unix.AT_FDCWD
	fd, _, errno := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), 0
}

// rawClose closes fd with a raw system call; a close of a /proc file or a
// pidfd has no failure tend could act on.
func rawClose(fd int) {
	_, _, _ = unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
}
