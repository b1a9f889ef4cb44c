package signals

import (
	"os"
	"os/signal"
	"strings"

	"golang.org/x/sys/unix"
)

// Catchable lists every catchable standard signal, the set forwarded with
// lifecycle's Behaviour.ForwardCatchable (whose doc names the peer it comes
// from): every one from 1 to 31 that a process can catch but CHLD, which
// means "reap". Unlike Forwarded (tini's set), the fault signals, PIPE,
// URG, TTIN and TTOU are in it too:
//   - A fault signal that another process sent (si_code SI_USER) reaches
//     os/signal once Notify asked for it; a genuine fault in tend's own
//     code still crashes it (runtime/signal_unix.go, sighandler).
//   - URG (with urg): the Go runtime also sends itself URG to preempt
//     goroutines (runtime/preempt.go). tend is built with asynchronous
//     preemption off (the Makefile's -X
//     runtime.godebugDefault=asyncpreemptoff=1), so every URG received is
//     someone else's; a tend built without it (a plain go build) does
//     not forward URG, as in tini mode, rather than pass on its own.
//   - PROF is listed, but no Go program can receive it: the runtime
//     consumes every SIGPROF for its profiler and never hands one to
//     os/signal (runtime/signal_unix.go: `if sig == _SIGPROF { ...;
//     return }`). The README records it, with the proof in
//     docs/design.md.
//
// pipe: whether PIPE is forwarded. tend's own writes to a socket whose
// peer has gone raise a PIPE that os/signal cannot tell from a sent one,
// so with a health endpoint, or HTTP or gRPC probes and hooks, a peer
// could otherwise make tend send the app a PIPE, which kills most programs.
func Catchable(pipe, urg bool) []unix.Signal {
	var out []unix.Signal
	for s := unix.Signal(1); s <= 31; s++ {
		switch s {
		case unix.SIGKILL, unix.SIGSTOP, unix.SIGCHLD:
			continue
		case unix.SIGPIPE:
			if !pipe {
				continue
			}
		case unix.SIGURG:
			if !urg {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// ListenCatchable is Listen for Catchable's set. Every standard signal is
// registered now, before the app starts and before tend detaches from its
// terminal, which sends tend HUP and CONT (the terminal hand-off, which
// must be seen to be ignored once); an inherited SIG_IGN does not stay, as
// the peer installs a handler for every signal, so the app starts with
// every signal at its default. TERM, INT and stop go to Stop (they
// still begin tend's stop: readiness off, probes ended, pre-stop), the rest
// to Forward; realtime signals are registered by AfterAppStart as in tini
// mode. TTIN and TTOU stay handled, never ignored: they are forwarded, and
// then tend may suspend itself.
func ListenCatchable(stop unix.Signal, pipe, urg bool) *Channels {
	c := &Channels{
		Stop:              make(chan os.Signal, 8),
		Child:             make(chan os.Signal, 1),
		Forward:           make(chan os.Signal, 64),
		drop:              make(chan os.Signal, 1),
		forwardJobControl: true,
	}
	signal.Notify(c.Child, unix.SIGCHLD)
	if !pipe {
		// As in tini mode: handled, so a write to a closed socket fails
		// with EPIPE instead of killing tend, and not inherited ignored.
		signal.Notify(c.drop, unix.SIGPIPE)
	}
	var stops, fwd []os.Signal
	for _, s := range Catchable(pipe, urg) {
		if isStop(s) || s == stop {
			stops = append(stops, s)
		} else {
			fwd = append(fwd, s)
		}
	}
	for n := firstForwardable; n <= rtMax; n++ {
		if unix.Signal(n) != stop {
			c.realtime = append(c.realtime, unix.Signal(n))
		}
	}
	if stop >= firstForwardable {
		stops = append(stops, stop)
	}
	signal.Notify(c.Stop, stops...)
	signal.Notify(c.Forward, fwd...)
	return c
}

// AsyncPreemptOff reports whether the Go runtime runs with asynchronous
// preemption off, so that it never sends tend a SIGURG of its own and
// ListenCatchable may forward URG: when GODEBUG says so, or else when the
// build set it (buildGodebug: the Makefile's -X
// runtime.godebugDefault=asyncpreemptoff=1), as the runtime decides it (runtime1.go, parsedebugvars: the build's defaults, then
// GODEBUG, the last setting of a name winning).
func AsyncPreemptOff(env func(string) (string, bool), buildGodebug string) bool {
	if g, ok := env("GODEBUG"); ok {
		if v, ok := lastSetting(g, "asyncpreemptoff"); ok {
			return v == "1"
		}
	}
	v, ok := lastSetting(buildGodebug, "asyncpreemptoff")
	return ok && v == "1"
}

// lastSetting is the value of the last name=value for name in a GODEBUG
// list.
func lastSetting(list, name string) (val string, ok bool) {
	for _, kv := range strings.Split(list, ",") {
		if k, v, found := strings.Cut(strings.TrimSpace(kv), "="); found && k == name {
			val, ok = v, true
		}
	}
	return val, ok
}
