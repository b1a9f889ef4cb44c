package notify

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tend-init/tend/internal/excerpt"
)

// MaxDatagram bounds one notification: systemd's NOTIFY_BUFFER_MAX, which
// is PIPE_BUF (src/basic/constants.h). A longer datagram is dropped whole.
const MaxDatagram = 4096

// StatusMax bounds Message.Status, escapes included, so that /readyz?verbose
// stays short: a STATUS= of 4 KB of control bytes escapes to 16 KB.
const StatusMax = 256

// Message is one parsed notification. Fields hold what the datagram said;
// the zero value of each means the datagram did not say it.
type Message struct {
	PID int // the sender, from SCM_CREDENTIALS, in tend's pid namespace
	UID int // the sender's uid, from SCM_CREDENTIALS

	Ready     bool // READY=1
	Reloading bool // RELOADING=1; a datagram with both means reloaded and ready again (service.c applies RELOADING first)
	Stopping  bool // STOPPING=1
	Watchdog  bool // WATCHDOG=1: a keep-alive
	Trigger   bool // WATCHDOG=trigger: the app asks to be treated as hung

	HasStatus bool   // STATUS= was present, possibly empty (which clears it)
	Status    string // STATUS= as it may be shown: escaped (excerpt) and cut to StatusMax
	MainPID   int    // MAINPID=, when valid; tend reports it, it does not follow it
	Errno     int    // ERRNO=, when valid (a positive errno)

	// Ignored names the lines tend did not use because their value was
	// malformed (MAINPID=abc), escaped and quoted, for a debug log line.
	// Unknown keys are not listed: the protocol lets senders add keys.
	Ignored []string
}

// maxIgnored bounds Message.Ignored: a 4 KB datagram of bad lines must not
// turn into a thousand log fields.
const maxIgnored = 4

// Parse reads a datagram's payload as service_notify_message does: lines
// split on "\n" or "\r" (strv_split_newlines; no trailing newline needed,
// empty lines skipped), each
// KEY=VALUE; a flag such as READY=1 counts only when the line is exactly
// that; the first STATUS=, MAINPID= and ERRNO= wins (strv_find_startswith).
// A malformed value is ignored with the rest of the datagram kept, as
// systemd logs and goes on. Parse does not check size or NUL bytes: the
// receiver has dropped those datagrams before (see Check).
func Parse(b []byte) Message {
	var m Message
	var sawStatus, sawPID, sawErrno bool
	s := strings.TrimSuffix(string(b), "\x00") // the one trailing NUL Check allows ends the text, as in C
	for _, line := range strings.FieldsFunc(s, isNewline) {
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue // systemd's strv_find_startswith never matches such a line either
		}
		switch key {
		case "READY":
			m.Ready = m.Ready || val == "1"
		case "RELOADING":
			m.Reloading = m.Reloading || val == "1"
		case "STOPPING":
			m.Stopping = m.Stopping || val == "1"
		case "WATCHDOG":
			m.Watchdog = m.Watchdog || val == "1"
			m.Trigger = m.Trigger || val == "trigger"
		case "STATUS":
			if sawStatus {
				continue
			}
			sawStatus = true
			if !utf8.ValidString(val) {
				// service.c: "Status message in notification message
				// is not UTF-8 clean", and the status is left as it was.
				m.ignore(line)
				continue
			}
			m.HasStatus = true
			m.Status = showStatus(val)
		case "MAINPID":
			if sawPID {
				continue
			}
			sawPID = true
			if n, err := strconv.Atoi(val); err == nil && n > 0 && strconv.Itoa(n) == val {
				m.MainPID = n
			} else {
				m.ignore(line)
			}
		case "ERRNO":
			if sawErrno {
				continue
			}
			sawErrno = true
			if n, err := strconv.Atoi(val); err == nil && n > 0 && n < 4096 && strconv.Itoa(n) == val {
				m.Errno = n // parse_errno's range: 1..MAX_ERRNO
			} else {
				m.ignore(line)
			}
		}
		// Other keys (EXTEND_TIMEOUT_USEC, WATCHDOG_USEC, FDSTORE,
		// BUSERROR, MONOTONIC_USEC, ...) are not tend's to act on.
	}
	return m
}

func isNewline(r rune) bool { return r == '\n' || r == '\r' }

func (m *Message) ignore(line string) {
	if len(m.Ignored) < maxIgnored {
		m.Ignored = append(m.Ignored, excerpt.Quote(line))
	}
}

// showStatus escapes a status for /readyz?verbose and the log, cut at
// StatusMax with "…" as excerpt does.
func showStatus(s string) string {
	b, all := excerpt.AppendEscaped(make([]byte, 0, min(len(s), StatusMax)+len("…")), s, StatusMax)
	if !all {
		b = append(b, "…"...)
	}
	return string(b)
}

// Drop is why a datagram was dropped before parsing.
type Drop int

// The reasons, each counted apart (Receiver.Count).
const (
	Accepted    Drop = iota
	Truncated        // longer than MaxDatagram (MSG_TRUNC), or its control data cut (MSG_CTRUNC)
	WithFds          // SCM_RIGHTS attached; the descriptors are closed
	NoCreds          // no SCM_CREDENTIALS, or pid 0: a sender outside tend's pid namespace
	HasNUL           // a NUL byte before the last byte
	Denied           // the caller's check refused the sender's pid
	RateLimited      // over the token bucket
	QueueFull        // the loop had not taken the previous messages
	nDrops
)

var dropNames = [nDrops]string{"accepted", "truncated", "fds attached", "no credentials", "NUL byte", "sender not allowed", "rate limited", "queue full"}

func (d Drop) String() string {
	if d < 0 || d >= nDrops {
		return fmt.Sprintf("drop(%d)", int(d))
	}
	return dropNames[d]
}

// Check applies systemd's checks on the payload alone (size, NUL); n is
// the datagram's length as recvmsg reported it.
func Check(b []byte, n int, truncated bool) Drop {
	if truncated || n > MaxDatagram {
		return Truncated
	}
	if len(b) > 1 && strings.IndexByte(string(b[:len(b)-1]), 0) >= 0 {
		return HasNUL // manager.c: "embedded NUL bytes", one trailing NUL allowed
	}
	return Accepted
}

// Said is one thing a message said, in tend's log's words ("notify: " and
// the text): Info at -v, or else at -vv.
type Said struct {
	Info bool
	Text string
}

// Said lists what m is worth a log line for, in order, given the app's
// readiness before (was) and after (ready) it: a change of readiness is a
// READY=1 or a reload, and the rest tend reports but does not act on.
func (m Message) Said(was, ready bool) []Said {
	var out []Said
	add := func(info bool, format string, args ...any) {
		out = append(out, Said{info, fmt.Sprintf(format, args...)})
	}
	switch {
	case ready && !was:
		add(true, "the app said READY=1 (pid %d)", m.PID)
	case !ready && was:
		add(true, "the app said RELOADING=1 (pid %d): not ready until its next READY=1", m.PID)
	}
	if m.HasStatus {
		add(false, "the app's status: %s", m.Status)
	}
	if m.Stopping {
		add(true, "the app said STOPPING=1 (pid %d); the stop is still tend's to make", m.PID)
	}
	if m.MainPID > 0 {
		add(false, "the app said MAINPID=%d; tend watches the app it started", m.MainPID)
	}
	if m.Errno > 0 {
		add(true, "the app said ERRNO=%d", m.Errno)
	}
	if len(m.Ignored) > 0 {
		add(false, "malformed lines ignored: %s", strings.Join(m.Ignored, ", "))
	}
	return out
}
