package signals

import (
	"os"
	"os/signal"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// What a child inherits. exec resets a handled signal to its default action
// but keeps an ignored one, so every SIG_IGN that tend sets for its own
// survival would leak into each hook and exec probe it starts. A process
// tend starts must get what a shell would give it: the dispositions tend
// inherited, as tini's children get the ones tini inherited (tini saves
// them and restores them in the child before exec).
//
// Two kinds of signal are concerned (go1.26, runtime/sigtab_linux_generic.go):
//
//   - TTIN and TTOU are _SigNotify+_SigDefault+_SigIgn: the runtime leaves
//     them alone until os/signal touches them. tend must ignore them once
//     the app owns the terminal, as tini does: a handler would not do, since
//     a background write to a TOSTOP terminal then fails with ERESTARTSYS
//     and sends TTOU again at every restart (tty_check_change), a livelock;
//     only SIG_IGN (or a blocked signal) lets the write through. So
//     ignoreOwn calls signal.Notify for them, which marks them as handled
//     by the runtime, and sets SIG_IGN over the runtime's handler with a
//     raw rt_sigaction. The kernel then ignores them for tend, while the
//     child side of every Go fork (syscall.runtime_AfterForkInChild,
//     clearSignalHandlers) resets each signal the runtime handles to
//     SIG_DFL before exec.
//   - 32, 33 and 34 are _SigSetStack (33 is the runtime's own in a static
//     build): os/signal cannot touch them, the runtime installs no handler
//     for 32 and 34, and a raw copy of its handler would kill tend
//     (sigfwdgo sees a signal it does not handle, whose inherited action is
//     SIG_DFL, and dies of it). So tend keeps them ignored, and ForChild
//     sets them back to SIG_DFL for the instant of each fork. As PID 1
//     that instant costs nothing: the kernel discards a SIG_DFL signal sent
//     to a namespace's init (sig_task_ignored, SIGNAL_UNKILLABLE). Not as
//     PID 1, only a process that could as well SIGKILL tend can kill it
//     with one of them in that instant.
//
// A signal that tend inherited ignored stays ignored, in tend and in every
// child, as with tini.

// childSignals is what Channels keeps to start children right.
type childSignals struct {
	// mu is held across a swap and the fork inside it: two starts at once
	// must not restore SIG_IGN under each other's fork.
	mu sync.Mutex
	// swap: ignored by tend for itself, SIG_DFL for its children.
	swap []unix.Signal
	// ready is closed once TTIN and TTOU are the runtime's own (nil:
	// nothing to wait for).
	ready <-chan struct{}
}

// ignoreOwn makes tend ignore TTIN, TTOU and 32-34 without its children
// inheriting that. Called by AfterAppStart, before any hook or probe.
func (c *Channels) ignoreOwn() {
	var job []os.Signal
	for _, s := range c.jobControl() {
		if h, err := dispositionRaw(s); err == nil && h != sigIgn {
			job = append(job, s)
		}
	}
	ignore := func() {
		for _, s := range job {
			_ = ignoreRaw(s.(unix.Signal)) // a valid signal: cannot fail
		}
	}
	// Ignored at once: tend must not stop on the terminal from now on.
	ignore()
	if len(job) > 0 {
		// Notify makes the runtime count them as its own, so that the
		// child side of a fork resets them to SIG_DFL; it installs the
		// runtime's handler, hence SIG_IGN again after it. It is a round
		// trip to the runtime's signal thread (0.1-0.8 ms measured on a
		// loaded machine), so it runs off the loop's start-up path, as
		// AfterAppStart's other registrations do; ForChild waits for it.
		ready := make(chan struct{})
		c.child.ready = ready
		go func() {
			signal.Notify(c.drop, job...)
			ignore()
			close(ready)
		}()
	}
	for n := 32; n < firstForwardable; n++ {
		s := unix.Signal(n)
		if h, err := dispositionRaw(s); err != nil || h == sigIgn {
			continue // no such signal, or inherited ignored: left as it is
		}
		if ignoreRaw(s) == nil {
			c.child.swap = append(c.child.swap, s)
		}
	}
}

// jobControl lists the job-control signals tend ignores for itself: none
// when they are forwarded (ListenCatchable, or Listen when
// JobControlForApp).
func (c *Channels) jobControl() []unix.Signal {
	if c.forwardJobControl {
		return nil
	}
	return []unix.Signal{unix.SIGTTIN, unix.SIGTTOU}
}

// ForChild runs start, which forks and execs one hook or probe, so that
// the child inherits the dispositions tend inherited for TTIN, TTOU and
// 32-34 rather than the SIG_IGN tend keeps for itself. Starts go through it
// one at a time.
func (c *Channels) ForChild(start func()) {
	if c == nil {
		start()
		return
	}
	c.child.mu.Lock()
	defer c.child.mu.Unlock()
	if c.child.ready != nil {
		<-c.child.ready // bounded: a registration, microseconds to a millisecond
	}
	for _, s := range c.child.swap {
		_ = defaultRaw(s) // valid signals: cannot fail
	}
	defer func() {
		for _, s := range c.child.swap {
			_ = ignoreRaw(s) // as above
		}
	}()
	// And the queue limit tend was given, not its own cap.
	c.queue.around(start)
}

// The values of a struct sigaction's handler for SIG_DFL and SIG_IGN.
const (
	sigDfl = 0
	sigIgn = 1
)

// dispositionRaw reads sig's handler with rt_sigaction: sigDfl, sigIgn, or
// a handler's address. The handler is the first word of struct sigaction
// on every architecture tend is built for; 8 words hold the whole struct
// on each of them.
func dispositionRaw(sig unix.Signal) (uintptr, error) {
	var old [8]uintptr
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return old[0], nil
}

// defaultRaw sets SIG_DFL with rt_sigaction, for the signals os/signal
// refuses to touch (see ignoreRaw).
func defaultRaw(sig unix.Signal) error {
	var act [4]uint64 // all zero: SIG_DFL, no flags, empty mask
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
