package signals

import (
	"os"
	"os/signal"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Channels delivers signals to the event loop. SIGCHLD has its own channel so
// that a burst of child exits can never crowd out a TERM: os/signal drops a
// signal when its channel is full.
type Channels struct {
	// Child receives SIGCHLD. One buffered slot is enough, because the
	// reaper drains every exited child on each delivery.
	Child chan os.Signal
	// Forward receives every signal that tend forwards.
	Forward chan os.Signal
	// Ignored lists the forwardable signals that were ignored when tend
	// started. They are left ignored, so the app inherits SIG_IGN.
	Ignored  []unix.Signal
	pipe     chan os.Signal
	realtime []os.Signal
}

// Listen registers for SIGCHLD and the forwarded signals. Call it before
// starting any process, so that no early SIGCHLD or TERM is lost; then reap
// once after the start to catch exits that happened in between.
func Listen() *Channels {
	c := &Channels{
		Child:   make(chan os.Signal, 1),
		Forward: make(chan os.Signal, 64),
		// Notify, not signal.Ignore: Ignore would leak SIG_IGN for PIPE
		// into every exec'd child. Nobody reads this channel; a write to a
		// closed pipe then returns EPIPE instead of killing tend.
		pipe: make(chan os.Signal, 1),
	}
	signal.Notify(c.Child, unix.SIGCHLD)
	signal.Notify(c.pipe, unix.SIGPIPE)
	var fwd []os.Signal
	for _, s := range Forwarded() {
		// The runtime leaves an inherited SIG_IGN in place for HUP, INT
		// and the job-control signals until Notify is called; honour it.
		if signal.Ignored(s) {
			c.Ignored = append(c.Ignored, s)
			continue
		}
		if s >= firstForwardable {
			c.realtime = append(c.realtime, s)
			continue
		}
		fwd = append(fwd, s)
	}
	signal.Notify(c.Forward, fwd...)
	return c
}

// ListenRealtime registers the realtime signals. Each signal.Notify costs a
// round trip to the runtime's signal thread: the 30 realtime signals took
// about 3 ms, twice the rest of tend's start-up, and registering them
// concurrently with the app's start slowed it just as much. So tend
// registers them shortly after the app has started (RealtimeDelay). Until
// then the runtime drops a realtime signal; it cannot kill tend. The
// standard signals are all registered before the app starts.
func (c *Channels) ListenRealtime() {
	signal.Notify(c.Forward, c.realtime...)
}

// RealtimeDelay is how long after the app's start the realtime signals are
// registered; a `tend true` is over long before.
const RealtimeDelay = 20 * time.Millisecond

// AfterAppStart makes tend ignore what it must not act on, once the app has
// started, so that the app does not inherit SIG_IGN for any of it:
//   - SIGTTIN and SIGTTOU, as tini does, so tend is not stopped when it
//     writes to a terminal whose foreground group is now the app's;
//   - signals 32 to 34, which the Go runtime leaves at SIG_DFL (it keeps
//     them for libc) and so would kill tend, even as PID 1 when they come
//     from outside its namespace.
func AfterAppStart() {
	signal.Ignore(unix.SIGTTIN, unix.SIGTTOU)
	for n := 32; n < firstForwardable; n++ {
		_ = ignoreRaw(unix.Signal(n)) // EINVAL only on kernels without that signal
	}
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

// Stop undoes Listen, for tests that call Listen repeatedly.
func (c *Channels) Stop() {
	signal.Stop(c.Child)
	signal.Stop(c.Forward)
	signal.Stop(c.pipe)
}
