package signals

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Channels delivers signals to the event loop. Each class has its own
// channel, because os/signal drops a signal when its channel is full: a
// storm of USR1s or of child exits must never crowd out the TERM that
// begins a stop (measured: 200,000 signals on one shared 64-slot channel
// lost the TERM behind them in 3 of 5 runs).
type Channels struct {
	// Stop receives the signals that begin the stop sequence (TERM and
	// INT). The loop reads it before anything else.
	Stop chan os.Signal
	// Child receives SIGCHLD. One buffered slot is enough, because the
	// reaper drains every exited child on each delivery.
	Child chan os.Signal
	// Forward receives every other signal that tend forwards.
	Forward chan os.Signal
	// Ignored lists the forwardable signals that were ignored when tend
	// started. They are left ignored, so the app inherits SIG_IGN.
	Ignored []unix.Signal
	// drop receives what tend catches only so that it cannot die of it:
	// SIGPIPE and SIGABRT, and SIGTTIN and SIGTTOU for the instants they
	// are not ignored (children.go). Nobody reads it. (The other fault
	// signals are marked ignored instead: see Listen.)
	drop     chan os.Signal
	later    []os.Signal // standard signals registered by AfterAppStart
	realtime []os.Signal // realtime signals, RealtimeDelay after that
	queue    queue       // tend's own cap on queued signals (queue_linux.go)
	// child is what hooks and probes inherit: children.go.
	child childSignals
	// forwardJobControl: TTIN and TTOU are forwarded, not ignored
	// (ListenCatchable always; Listen when JobControlForApp).
	forwardJobControl bool
}

// ForwardsJobControl reports whether TTIN and TTOU are forwarded to the
// app rather than ignored (JobControlForApp).
func (c *Channels) ForwardsJobControl() bool { return c.forwardJobControl }

// CapQueue caps tend's own queue of realtime signals at QueueLimit (see
// there for why). Call it once the app has started, so that the app
// inherits the limit tend was given; every process started later through
// ForChild gets that limit too.
func (c *Channels) CapQueue() error { return c.queue.lower() }

// stopSignals always begin a stop; they are forwarded once pre-stop has
// run.
var stopSignals = []unix.Signal{unix.SIGTERM, unix.SIGINT}

// CheckStopSignal reports whether sig can be a stop signal: tend must be
// able to catch it, and the runtime must not need it for itself.
func CheckStopSignal(sig unix.Signal) error {
	switch {
	case sig == unix.SIGKILL || sig == unix.SIGSTOP:
		return fmt.Errorf("%s cannot be caught, so it cannot begin a stop", Name(sig))
	case sig == unix.SIGCHLD || sig == unix.SIGURG || sig == unix.SIGPIPE || sig == unix.SIGPROF || (sig >= 32 && sig < firstForwardable):
		return fmt.Errorf("%s is kept for reaping or by the Go runtime; choose another stop signal", Name(sig))
	}
	for _, f := range Faults() {
		if sig == f {
			return fmt.Errorf("%s is a fault signal; choose another stop signal", Name(sig))
		}
	}
	return nil
}

// Faults lists the signals that the Go runtime turns into a crash dump and
// exit 2 even when another process sends them. The kernel drops a signal
// that PID 1 has no handler for, so `kill -SEGV 1` from inside a container
// cannot kill tini; tend drops these too (Listen), so that it cannot kill
// tend either. A genuine fault inside tend still crashes it: the runtime
// only drops a fault signal, or delivers it to a channel, when it was sent
// by a process (si_code SI_USER), never when tend's own code faulted.
func Faults() []unix.Signal {
	return []unix.Signal{unix.SIGSEGV, unix.SIGBUS, unix.SIGFPE, unix.SIGILL,
		unix.SIGTRAP, unix.SIGABRT, unix.SIGSYS, unix.SIGSTKFLT}
}

// Listen registers for SIGCHLD, the stop signals and the forwarded signals
// that would kill or stop tend (HUP, QUIT, TSTP, and TTIN and TTOU when
// JobControlForApp), and drops the fault signals and
// SIGPIPE. Call it before starting any process, so
// that no early SIGCHLD or TERM is lost; then reap once after the start to
// catch exits that happened in between. Call AfterAppStart once the app
// has started (or at once in pause mode).
//
// stop is the configured stop signal: it joins TERM and INT on the Stop
// channel (and is registered even when it was inherited as ignored, since
// the user named it).
func Listen(stop unix.Signal) *Channels {
	c := &Channels{
		Stop:    make(chan os.Signal, 8),
		Child:   make(chan os.Signal, 1),
		Forward: make(chan os.Signal, 64),
		// Notify, not signal.Ignore, for PIPE: Ignore would leak SIG_IGN
		// into every exec'd child, while a handler is reset by exec. A
		// write to a closed pipe then returns EPIPE instead of killing
		// tend.
		drop: make(chan os.Signal, 1),
	}
	signal.Notify(c.Child, unix.SIGCHLD)
	// ABRT is a fault signal the runtime also lets os/signal deliver;
	// signal.Ignore would set SIG_IGN for it, which exec'd children
	// inherit, as for PIPE.
	signal.Notify(c.drop, unix.SIGPIPE, unix.SIGABRT)
	// The other fault signals are dropped by the runtime itself once
	// marked ignored: its handler returns at once for one sent by a
	// process (SI_USER), and still crashes on a genuine fault. Ignore
	// keeps the runtime's handler installed for them (they are not ones
	// os/signal can deliver), so nothing leaks to children; and unlike
	// Notify it costs no round trip to the runtime's signal thread
	// (each one tens of microseconds on tend's start-up path).
	var faults []os.Signal
	for _, s := range Faults() {
		if s != unix.SIGABRT {
			faults = append(faults, s)
		}
	}
	signal.Ignore(faults...)
	var stops, fwd []os.Signal
	if stop != 0 && !isStop(stop) {
		stops = append(stops, stop)
	}
	c.forwardJobControl = JobControlForApp()
	for _, s := range Forwarded() {
		if s == stop && !isStop(s) {
			continue // on the Stop channel already
		}
		if isJobControl(s) && !c.forwardJobControl {
			continue // ignored by tend for itself once the app runs (ignoreOwn)
		}
		// The runtime leaves an inherited SIG_IGN in place for HUP, INT
		// and the job-control signals until Notify is called; honour it.
		if inheritedIgnored(s) {
			c.Ignored = append(c.Ignored, s)
			continue
		}
		switch {
		case isStop(s):
			stops = append(stops, s)
		case s >= firstForwardable:
			c.realtime = append(c.realtime, s)
		case fatal(s):
			fwd = append(fwd, s)
		default:
			c.later = append(c.later, s)
		}
	}
	signal.Notify(c.Stop, stops...)
	signal.Notify(c.Forward, fwd...)
	return c
}

// fatal reports whether sig kills or stops tend when no one has called
// Notify for it: HUP, INT and TERM exit, QUIT dumps and exits, TSTP keeps
// its default action. These, the stop signals and the faults are handled
// before the app starts, so nothing the app sends can kill tend, even in
// its first microseconds. The rest the runtime ignores until Notify, so
// they are registered right after the app has started, off its start-up
// path: each Notify is a round trip to the runtime's signal thread (about
// 270 us for the eight of them, measured).
func fatal(s unix.Signal) bool {
	switch s {
	case unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM:
		return true
	case unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU:
		return true // their default action stops tend when it is not PID 1
	}
	return false
}

// inheritedIgnored reports whether s was SIG_IGN when tend started.
// signal.Ignored cannot tell for TTIN and TTOU: the runtime records an
// inherited SIG_IGN only for the signals it installs a handler for at
// start, and leaves these (_SigDefault) unread; so they are read raw.
func inheritedIgnored(s unix.Signal) bool {
	if isJobControl(s) {
		h, err := dispositionRaw(s)
		return err == nil && h == sigIgn
	}
	return signal.Ignored(s)
}

func isJobControl(s unix.Signal) bool { return s == unix.SIGTTIN || s == unix.SIGTTOU }

// JobControlForApp reports whether a TTIN or TTOU that reaches tend can
// only have been sent by a process, for the app (gunicorn adds a worker on
// TTIN and removes one on TTOU), so that tend forwards them; otherwise
// tend ignores them for itself, as tini does.
//
// The kernel sends a process group TTIN or TTOU when one of its members
// reads from, or writes to (with TOSTOP) or changes, its controlling
// terminal from the background (tty_check_change in
// drivers/tty/tty_jobctrl.c), and never when that group is orphaned (no
// member has a parent in another group of the same session): then the
// access fails with EIO instead. Two cases are safe:
//   - tend leads its session: PID 1 in every container (runc and crun call
//     setsid() for it), a sidecar's tend in a shared-PID pod, `setsid
//     tend`. Its group's only outside parent is in another session, so
//     the group is orphaned.
//   - tend has no controlling terminal at all: there is nothing to stop
//     it for.
//
// Otherwise (tend run from an interactive shell, with -s, or under
// `unshare -pf` without setsid) a TTIN or TTOU may be the terminal
// stopping tend's own job: forwarding it would hand the app a stop meant
// for tend, and a caught TTOU would make a write to a TOSTOP terminal fail
// and raise TTOU again at each restart. There tend keeps tini's SIG_IGN:
// it never stops, and its writes go through.
func JobControlForApp() bool {
	if sid, err := unix.Getsid(0); err == nil && sid == os.Getpid() {
		return true
	}
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err == nil {
		_ = unix.Close(fd) // opened only to ask; nothing was read
		return false
	}
	// ENXIO: no controlling terminal. Anything else (no /dev/tty in the
	// image, EACCES) answers nothing: tini's choice is the safe one.
	return errors.Is(err, unix.ENXIO)
}

func isStop(s unix.Signal) bool {
	for _, t := range stopSignals {
		if s == t {
			return true
		}
	}
	return false
}

// RealtimeDelay is how long after the app's start the realtime signals are
// registered; a `tend true` is over long before.
const RealtimeDelay = 20 * time.Millisecond

// AfterAppStart finishes the set-up once the app has started:
//   - It registers the standard forwarded signals that cannot kill tend
//     (USR1, USR2, ALRM, CONT, WINCH, XCPU, VTALRM), on a goroutine of
//     its own that runs as soon as the loop first waits, a few hundred
//     microseconds after the fork. One of them sent before that is
//     dropped; it cannot kill tend. They are registered at once, not
//     later with the realtime ones: an app that reports ready and is sent
//     USR1 at once must get it.
//   - Unless they are forwarded (JobControlForApp), it ignores SIGTTIN
//     and SIGTTOU, as tini does, so tend is not stopped when it writes to
//     a terminal whose foreground group is now the app's; doing it only
//     now means the app does not inherit SIG_IGN, and the way it is done
//     (ignoreOwn) means no hook or probe does.
//   - It ignores signals 32 to 34, which the Go runtime leaves at SIG_DFL
//     (it keeps them for libc) and so would kill tend when it is not
//     PID 1; ForChild keeps that SIG_IGN from hooks and probes.
//   - It registers the realtime signals RealtimeDelay later. Each
//     signal.Notify costs a round trip to the runtime's signal thread: the
//     30 realtime signals took about 3 ms, twice the rest of tend's
//     start-up, and registering them concurrently with the app's start
//     slowed it just as much. Until then the runtime drops a realtime
//     signal; it cannot kill tend.
//
// The returned channel is closed once the realtime signals are registered.
func (c *Channels) AfterAppStart() <-chan struct{} {
	c.ignoreOwn() // TTIN, TTOU, 32-34: see children.go
	done := make(chan struct{})
	// These goroutines only register; delivery still goes through
	// c.Forward, which the loop owns. The first runs as soon as the loop
	// waits, so the loop need not wait for its seven round trips.
	go func() {
		// Never Notify with no signals: that asks for every signal,
		// URG and PROF included. later is empty after ListenCatchable
		// (it registers all at once) and when every one of them
		// was inherited ignored.
		if len(c.later) > 0 {
			signal.Notify(c.Forward, c.later...)
		}
		time.AfterFunc(RealtimeDelay, func() {
			if len(c.realtime) > 0 {
				signal.Notify(c.Forward, c.realtime...)
			}
			close(done)
		})
	}()
	return done
}

// ignoreRaw sets SIG_IGN with rt_sigaction directly: os/signal refuses to
// touch the signals the runtime reserves. SIG_IGN runs no code, so it cannot
// disturb the runtime.
func ignoreRaw(sig unix.Signal) error {
	// struct sigaction with sa_handler = SIG_IGN (1), no flags, empty mask;
	// 4 words covers every Linux layout (handler, flags, restorer, mask).
	act := [4]uint64{1, 0, 0, 0}
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// Close undoes Listen, for tests that call Listen repeatedly. tend itself
// never calls it: each signal costs a round trip to the runtime's signal
// thread (up to 0.9 ms in all), and exiting unregisters everything at once.
func (c *Channels) Close() {
	signal.Stop(c.Stop)
	signal.Stop(c.Child)
	signal.Stop(c.Forward)
	signal.Stop(c.drop)
}

// GuardPipe makes a write to a closed stdout or stderr return EPIPE from
// the first instant, before Listen: without a handler the Go runtime
// raises SIGPIPE for such a write and, as PID 1, which the kernel does not
// kill with it, exits 2 (runtime.sigpipe, dieFromSignal). tend logs from
// its first steps (the oom_score_adj line, the health address), and its
// log writer runs on its own goroutine, so a line can reach a broken
// stderr before Listen. The channel is never read: Notify drops what does
// not fit, and Listen's own registrations decide what PIPE does later.
func GuardPipe() {
	signal.Notify(make(chan os.Signal, 1), unix.SIGPIPE)
}
