// Package activation hands the listening sockets that systemd or podman
// pass to PID 1 (socket activation, sd_listen_fds(3)) on to the app, and
// to nothing else tend starts.
//
// The sender names the receiver in LISTEN_PID, and the receiver's
// sd_listen_fds() ignores the sockets unless LISTEN_PID is its own pid.
// Under tend the receiver is tend, so the app must be told it is now the
// receiver: catatonit sets LISTEN_PID to the child's pid between fork and
// exec (catatonit.c, rewrite_listen_pid_env; its issues 12-15), which Go
// cannot do, so tend starts the app through a shim (shim_linux.go): tend
// itself, re-executed, which sets LISTEN_PID to its own pid and execs the
// app in the same process. Hooks and probes get neither the sockets
// (close-on-exec in tend from the start) nor the variables, and tend closes
// its copies once the app runs.
package activation

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// FirstFd is the first socket's descriptor: SD_LISTEN_FDS_START.
const FirstFd = 3

// MaxFds bounds LISTEN_FDS. systemd refuses only what overflows an int;
// tend also checks that each descriptor is open before it takes any, so
// the bound only keeps that check short.
const MaxFds = 1 << 16

// The variables of the protocol (sd_listen_fds(3)). LISTEN_PIDFDID, newer
// than the others (systemd 258), names the receiver's pidfd inode as well.
const (
	EnvPid     = "LISTEN_PID"
	EnvPidfdID = "LISTEN_PIDFDID"
	EnvFds     = "LISTEN_FDS"
	EnvNames   = "LISTEN_FDNAMES"
)

// Offer is what tend was handed.
type Offer struct {
	N     int    // descriptors FirstFd .. FirstFd+N-1
	Names string // LISTEN_FDNAMES as given, for the log; "" when unset
}

// ErrNotOurs is Parse's answer when nothing is addressed to tend: no
// LISTEN_PID, or one that names another process. Then tend leaves the
// variables and the descriptors as they are, as catatonit does (it
// rewrites LISTEN_PID only when it names catatonit itself).
var ErrNotOurs = errors.New("no socket activation for tend")

// Parse reads the variables as sd_listen_fds does, for a process whose pid
// is pid and whose pidfd inode is ownPidfdID (ok false where the kernel
// has no pidfs, when systemd skips that check too). ErrNotOurs: nothing
// for tend. Any other error: the offer is tend's but malformed; the
// caller says so at warning and passes nothing on as a socket. Stricter
// than systemd's safe_atoi on one point: LISTEN_FDS is plain decimal
// digits, no sign, blank or base prefix.
func Parse(lookup func(string) (string, bool), pid int, ownPidfdID func() (uint64, bool)) (Offer, error) {
	p, ok := lookup(EnvPid)
	if !ok {
		return Offer{}, ErrNotOurs
	}
	n, err := decimal(p)
	if err != nil || n != pid {
		// sd_listen_fds fails on a LISTEN_PID that does not parse;
		// either way it does not name tend, so it is not tend's.
		return Offer{}, ErrNotOurs
	}
	if id, ok := lookup(EnvPidfdID); ok {
		want, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return Offer{}, fmt.Errorf("%s=%s is not a number", EnvPidfdID, excerpt.Quote(id))
		}
		if own, ok := ownPidfdID(); ok && own != want {
			return Offer{}, ErrNotOurs // "Is this *really* for us?" (sd-daemon.c)
		}
	}
	s, ok := lookup(EnvFds)
	if !ok {
		return Offer{}, fmt.Errorf("%s names tend but %s is unset", EnvPid, EnvFds)
	}
	n, err = decimal(s)
	if err != nil || n < 1 || n > MaxFds {
		return Offer{}, fmt.Errorf("%s=%s is not a count from 1 to %d", EnvFds, excerpt.Quote(s), MaxFds)
	}
	names, _ := lookup(EnvNames)
	return Offer{N: n, Names: names}, nil
}

// decimal parses a plain decimal number that fits an int32, as pids and
// descriptor counts do.
func decimal(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err
}

// Strip returns env without the protocol's variables: the environment of
// hooks and probes, which are not the receiver, and of the app when the
// offer was malformed (sd_listen_fds(1) unsets them on every path).
func Strip(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case EnvPid, EnvPidfdID, EnvFds, EnvNames:
			continue
		}
		out = append(out, kv)
	}
	return out
}

// forChild rewrites env for the process pid that receives the sockets:
// LISTEN_PID becomes pid, in place, and LISTEN_PIDFDID, when present,
// becomes pidfdID, or is dropped when ok is false (no pidfs: the
// receiver's sd_listen_fds then skips that check).
func forChild(env []string, pid int, pidfdID uint64, ok bool) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case EnvPid:
			kv = EnvPid + "=" + strconv.Itoa(pid)
		case EnvPidfdID:
			if !ok {
				continue
			}
			kv = EnvPidfdID + "=" + strconv.FormatUint(pidfdID, 10)
		}
		out = append(out, kv)
	}
	return out
}
