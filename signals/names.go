// Package signals decides which signals tend forwards and how, and sets up
// their delivery around the Go runtime's pitfalls: SIGURG is the runtime's
// own preemption signal, SIGCHLD only triggers reaping, SIGPIPE must not kill
// PID 1, and SIGHUP/SIGINT/SIGTERM kill a Go process that has no handler.
package signals

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
	"golang.org/x/sys/unix"
)

// rtMin is SIGRTMIN as programs see it: glibc reserves 32 and 33.
// firstForwardable is the first realtime signal tend can receive: the Go
// runtime also claims 34 (musl's SIGSYNCCALL), so os/signal cannot catch it.
const (
	rtMin            = 34
	rtMax            = 64
	firstForwardable = 35
)

// Forwarded lists the signals tend passes on to the app: tini's set, plus
// TTIN and TTOU (JobControlForApp says when), plus every application
// realtime signal. URG, CHLD and PIPE are deliberately
// absent: the runtime preempts goroutines with URG, CHLD means "reap", and a
// PIPE is about tend's own writes.
//
// SIGPROF and SIGRTMIN (34) are absent too, though tini forwards them: the
// Go runtime keeps PROF for its CPU profiler and 32-34 for libc, and
// os/signal.Notify is a no-op for them, so no pure Go program can receive
// them. The README records the difference.
func Forwarded() []unix.Signal {
	s := []unix.Signal{
		unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM,
		unix.SIGUSR1, unix.SIGUSR2, unix.SIGALRM, unix.SIGCONT,
		unix.SIGTSTP, unix.SIGWINCH, unix.SIGXCPU, unix.SIGVTALRM,
		// LXC and Incus stop a container's init with PWR; tini forwards
		// these three, and a Go program receives them through Notify.
		unix.SIGXFSZ, unix.SIGIO, unix.SIGPWR,
		// gunicorn adds a worker on TTIN and removes one on TTOU; tini
		// drops both (tini.c: they are left out of its sigwait set and
		// set to SIG_IGN), dumb-init forwards them (dumb-init.c,
		// handle_signal, then stops itself).
		unix.SIGTTIN, unix.SIGTTOU,
	}
	for n := firstForwardable; n <= rtMax; n++ {
		s = append(s, unix.Signal(n))
	}
	return s
}

// Name returns the conventional name of sig, such as "SIGTERM" or
// "SIGRTMIN+3".
func Name(sig unix.Signal) string {
	n := int(sig)
	switch {
	case n == rtMin:
		return "SIGRTMIN"
	case n > rtMin && n <= rtMax:
		return fmt.Sprintf("SIGRTMIN+%d", n-rtMin)
	}
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return strconv.Itoa(n)
}

// Parse reads a signal given as a name ("SIGTERM", "TERM", "sigterm",
// "RTMIN+2", "SIGRTMAX-1") or a number ("15"). Zero is not a signal.
func Parse(s string) (unix.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > rtMax {
			return 0, fmt.Errorf("signal number %d out of range 1..%d", n, rtMax)
		}
		return unix.Signal(n), nil
	}
	name := strings.ToUpper(strings.TrimSpace(s))
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig, ok := parseRealtime(name); ok {
		return sig, nil
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, nil
	}
	return 0, fmt.Errorf("unknown signal %s", excerpt.Quote(s))
}

// parseRealtime reads SIGRTMIN, SIGRTMIN+N, SIGRTMAX and SIGRTMAX-N.
func parseRealtime(name string) (unix.Signal, bool) {
	base, sign := 0, 1
	rest := ""
	switch {
	case strings.HasPrefix(name, "SIGRTMIN"):
		base, rest = rtMin, strings.TrimPrefix(name, "SIGRTMIN")
	case strings.HasPrefix(name, "SIGRTMAX"):
		base, rest, sign = rtMax, strings.TrimPrefix(name, "SIGRTMAX"), -1
	default:
		return 0, false
	}
	off := 0
	if rest != "" {
		want := "+"
		if sign < 0 {
			want = "-"
		}
		if !strings.HasPrefix(rest, want) {
			return 0, false
		}
		n, err := strconv.Atoi(rest[1:])
		if err != nil || n < 0 {
			return 0, false
		}
		off = n
	}
	n := base + sign*off
	if n < rtMin || n > rtMax {
		return 0, false
	}
	return unix.Signal(n), true
}

// Rewrite maps a received signal to the one forwarded. A target of 0 drops
// the signal, as -r and --rewrite-signal rules say.
type Rewrite map[unix.Signal]unix.Signal

// ParseRewrite reads one rule, FROM:TO, with names or numbers on either
// side; TO may be 0 to drop FROM.
func ParseRewrite(rule string) (from, to unix.Signal, err error) {
	a, b, ok := strings.Cut(rule, ":")
	if !ok || a == "" || b == "" {
		return 0, 0, fmt.Errorf("rewrite rule %s: want FROM:TO", excerpt.Quote(rule))
	}
	if from, err = Parse(a); err != nil {
		return 0, 0, fmt.Errorf("rewrite rule %s: %w", excerpt.Quote(rule), err)
	}
	if strings.TrimSpace(b) == "0" {
		return from, 0, nil
	}
	if to, err = Parse(b); err != nil {
		return 0, 0, fmt.Errorf("rewrite rule %s: %w", excerpt.Quote(rule), err)
	}
	return from, to, nil
}

// CheckRewriteFrom reports whether a rule FROM:TO can ever apply: only a
// signal that reaches tend's loop is rewritten, and that is one tend
// forwards (Forwarded), or stop, the configured stop signal, which tend
// catches whatever it is. Any other FROM would make a rule that silently
// never fires, so it is refused with the reason.
func CheckRewriteFrom(from, stop unix.Signal) error {
	if from == stop {
		return nil
	}
	for _, f := range Forwarded() {
		if from == f {
			return nil
		}
	}
	name := Name(from)
	for _, f := range Faults() {
		if from == f {
			return fmt.Errorf("%s is a fault signal: tend drops one that another process sends (so that it cannot crash tend, as the kernel drops it for tini), so it never reaches a rewrite", name)
		}
	}
	var why string
	switch {
	case from == unix.SIGKILL || from == unix.SIGSTOP:
		why = "cannot be caught: the kernel acts on it without tend seeing it"
	case from == unix.SIGCHLD:
		why = "is how tend learns to reap children; it is never forwarded"
	case from == unix.SIGURG:
		why = "is the Go runtime's goroutine preemption signal; tend never forwards it"
	case from == unix.SIGPIPE:
		why = "is about tend's own writes (to a closed pipe); tend drops it"
	case from == unix.SIGPROF:
		why = "belongs to the Go runtime's profiler: no Go program can receive it"
	case from >= 32 && from < firstForwardable:
		why = "is reserved by the Go runtime for libc: tend cannot receive it"
	default:
		why = "is one that tend ignores and does not forward (README, Signals)"
	}
	return fmt.Errorf("%s %s, so a rule for it could never apply", name, why)
}

// Apply returns what to forward for sig, and false when the rule drops it.
func (r Rewrite) Apply(sig unix.Signal) (unix.Signal, bool) {
	to, ok := r[sig]
	if !ok {
		return sig, true
	}
	return to, to != 0
}
