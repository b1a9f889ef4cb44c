package reaper

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// GroupChild finds, among root's descendants, the lowest pid left in the
// process group pgid, and its command name: a wrapper's child that
// outlived it (`sh -c "node server.js"`). Both are read from /proc with
// fixed buffers (a stat line's first 512 bytes hold the group; comm is at
// most 16 bytes), so a process cannot make tend read more. 0 and "" when
// there is none.
func GroupChild(root, pgid int) (int, string) {
	pids, err := Descendants(root)
	if err != nil {
		return 0, ""
	}
	best := 0
	var stat [512]byte
	for _, pid := range pids {
		b, err := ReadRaw("/proc/"+strconv.Itoa(pid)+"/stat", stat[:])
		if err != nil {
			continue // exited since the listing
		}
		if g, ok := statPgrp(b); ok && g == pgid && (best == 0 || pid < best) {
			best = pid
		}
	}
	if best == 0 {
		return 0, ""
	}
	comm, err := readComm(best)
	if err != nil {
		return best, "?"
	}
	return best, comm
}

// readComm is pid's command name from /proc/PID/comm, read into a fixed
// 64 bytes (the kernel's limit is 16), so a process cannot make tend read
// more.
func readComm(pid int) (string, error) {
	var buf [64]byte
	b, err := ReadRaw("/proc/"+strconv.Itoa(pid)+"/comm", buf[:])
	return strings.TrimSuffix(string(b), "\n"), err
}

// statPgrp is field 5 of a /proc/PID/stat line (StatFields).
func statPgrp(stat []byte) (int, bool) {
	f, _ := StatFields(stat) // state ppid pgrp ...; none without a command name
	if len(f) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	return g, err == nil
}

// containerInits are the command names of the inits a container or pod
// runs as PID 1, each of which reaps every orphan: Kubernetes' pause,
// podman's catatonit (its pods' infra container), tini (docker --init's
// docker-init), dumb-init, and tend.
var containerInits = []string{"pause", "catatonit", "tini", "tini-static", "docker-init", "dumb-init", "tend"}

// PID1Init names PID 1 when it is one of containerInits, read from
// /proc/1/comm (at most 64 bytes; the kernel's limit is 16); "" otherwise,
// or when it cannot be read. A host's systemd is left out: there the
// warning stays tini's.
func PID1Init() string {
	comm, err := readComm(1)
	if err == nil && slices.Contains(containerInits, comm) {
		return comm
	}
	return ""
}

// SignalExitedGroup signals the process group the reaped process pid led.
// Its pid cannot have been reused while the group has members: the kernel
// keeps a pid allocated as long as a process group carries its number, so
// kill(-pid) reaches that group or nobody (ESRCH).
func SignalExitedGroup(pid int, sig unix.Signal) {
	if pid <= 0 {
		return
	}
	_ = unix.Kill(-pid, sig) // ESRCH: the group is empty
}
