package notify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
)

// The variables of the protocol (sd_notify(3), sd_watchdog_enabled(3)).
const (
	EnvSocket       = "NOTIFY_SOCKET"
	EnvWatchdogUsec = "WATCHDOG_USEC"
	EnvWatchdogPid  = "WATCHDOG_PID"
)

// maxSunPath is sizeof(sockaddr_un.sun_path) on Linux. A path name needs
// its NUL inside it; an abstract name (leading NUL) does not.
const maxSunPath = 108

// ErrVsock is FromEnv's answer for a vsock: address (systemd 253+, for a
// VM's manager): tend does not speak AF_VSOCK.
var ErrVsock = errors.New(EnvSocket + " is a vsock address, which tend does not support")

// socketName checks NOTIFY_SOCKET as sd_pid_notify does
// (src/libsystemd/sd-daemon/sd-daemon.c): an absolute path, or "@name" for
// the abstract namespace (where "@" stands for the leading NUL), short
// enough for sun_path. It returns the name as x/sys/unix's SockaddrUnix
// takes it ("@..." for abstract).
func socketName(v string) (string, error) {
	switch {
	case v == "":
		return "", fmt.Errorf("%s is empty", EnvSocket)
	case strings.HasPrefix(v, "vsock:") || strings.HasPrefix(v, "vsock-"):
		return "", ErrVsock
	case v[0] == '@':
		if len(v) == 1 {
			return "", fmt.Errorf("%s=@ names no abstract socket", EnvSocket)
		}
		if len(v) > maxSunPath {
			return "", fmt.Errorf("%s=%s is longer than %d bytes", EnvSocket, excerpt.Quote(v), maxSunPath)
		}
	case v[0] == '/':
		if len(v) >= maxSunPath {
			return "", fmt.Errorf("%s=%s is longer than %d bytes", EnvSocket, excerpt.Quote(v), maxSunPath-1)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return "", fmt.Errorf("%s=%s holds a NUL byte", EnvSocket, excerpt.Quote(v))
		}
	default:
		return "", fmt.Errorf("%s=%s is neither an absolute path nor @abstract", EnvSocket, excerpt.Quote(v))
	}
	return v, nil
}

// WatchdogFromEnv reads WATCHDOG_USEC and WATCHDOG_PID as
// sd_watchdog_enabled does: 0 and nil when WATCHDOG_USEC is unset, or when
// WATCHDOG_PID is set and names another process than pid (the watchdog is
// someone else's); an error when either is malformed or WATCHDOG_USEC is 0
// (systemd: -EINVAL), and then tend sends no keep-alive, and says why.
// The period returned is the whole timeout: send WATCHDOG=1 every half of
// it (Interval), as sd_watchdog_enabled(3) recommends.
func WatchdogFromEnv(lookup func(string) (string, bool), pid int) (time.Duration, error) {
	v, ok := lookup(EnvWatchdogUsec)
	if !ok {
		return 0, nil
	}
	usec, err := strconv.ParseUint(v, 10, 64)
	if err != nil || usec == 0 || usec == ^uint64(0) {
		// ^0 is USEC_INFINITY, which systemd also refuses.
		return 0, fmt.Errorf("%s=%s is not a positive number of microseconds", EnvWatchdogUsec, excerpt.Quote(v))
	}
	if p, ok := lookup(EnvWatchdogPid); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%s=%s is not a pid", EnvWatchdogPid, excerpt.Quote(p))
		}
		if n != pid {
			return 0, nil // sd_watchdog_enabled: "Is this for us?"
		}
	}
	const maxUsec = uint64(1<<63-1) / uint64(time.Microsecond)
	if usec > maxUsec {
		usec = maxUsec // a period of 292 years is no watchdog; keep it finite rather than overflow
	}
	return time.Duration(usec) * time.Microsecond, nil
}

// Interval is how often to send WATCHDOG=1 for a timeout of period: half
// of it (sd_watchdog_enabled(3)), never less than a millisecond.
func Interval(period time.Duration) time.Duration {
	return max(period/2, time.Millisecond)
}

// StripEnv returns env without NOTIFY_SOCKET, WATCHDOG_USEC and
// WATCHDOG_PID: the manager's socket and watchdog are tend's, and an app
// that inherited them would tell podman or systemd it is ready before
// tend's post-start and probes have passed, and would be the one whose
// silence the watchdog judges. The caller adds the app's own socket
// (Receiver.Env) after, when --notify asks for one.
func StripEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case EnvSocket, EnvWatchdogUsec, EnvWatchdogPid:
			continue
		}
		out = append(out, kv)
	}
	return out
}
