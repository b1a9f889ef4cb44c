package signals

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// QueueLimit is the soft RLIMIT_SIGPENDING tend gives itself once the app
// has started: at most this many realtime signals wait in tend's queue;
// beyond it the kernel keeps one pending instance per signal number, as it
// always does for standard signals.
//
// Why a limit: the kernel queues every realtime signal sent with kill(2),
// up to the receiver's RLIMIT_SIGPENDING (about 96,000 by default), and
// takes them off that queue lowest number first, walking the list from the
// start for each one (kernel/signal.c, collect_signal). A queue that cycles
// over 35..64 therefore costs a quadratic walk to empty: 90,000 such
// signals took 24.8 s to dequeue in a C program with sigtimedwait, and
// 20,000 took 0.62 s, all of it in the kernel under the signal lock.
// tini survives that only because it acts on TERM, which sorts first, and
// exits before the queue matters. A Go program cannot: every thread whose
// mask lets a realtime signal through (the runtime gives tend no way to
// block them in its own threads, sysmon included) empties the whole queue
// through the runtime's handler before it runs another instruction of Go
// code, so TERM waited up to 80 s behind 90,000 queued signals. With the
// queue capped, the same flood measured 5-6 ms from TERM to exit with a
// limit of 1,024, 31 ms with 4,096 and 435 ms with 16,384 (go1.26.8, 2
// cores): the cost grows with the square of the limit, so the limit is
// small. 1,024 queued signals is still far more than any app that uses
// realtime signals for reloads and hand-offs sends between two reads.
//
// The check is against the receiver's own limit
// (kernel/signal.c, __sigqueue_alloc: sigpending <= task_rlimit(t,
// RLIMIT_SIGPENDING)), so only tend's own queue is capped; a process that
// uses sigqueue(3) rather than kill(2) gets EAGAIN once tend's queue is
// full, as it would from any full queue.
const QueueLimit = 1024

// queue holds the limit tend inherited, to give back to every process it
// starts after lowering its own (around): RLIMIT_SIGPENDING is inherited
// at fork, and a hook or a probe must not run with tend's cap.
type queue struct {
	inherited unix.Rlimit
	lowered   atomic.Bool
}

// lower caps tend's own queue at QueueLimit, keeping the hard limit so that
// a child's soft limit can be raised back without privilege. It is a no-op
// when the inherited soft limit is already that low.
func (q *queue) lower() error {
	var cur unix.Rlimit
	if err := prlimit(0, nil, &cur); err != nil {
		return err
	}
	if cur.Cur <= QueueLimit {
		return nil
	}
	q.inherited = cur
	// Set before the limit changes: a process started after this point
	// is always given the inherited limit back (a no-op when it was
	// forked before the change and inherited it anyway).
	q.lowered.Store(true)
	capped := unix.Rlimit{Cur: QueueLimit, Max: cur.Max}
	if err := prlimit(0, &capped, nil); err != nil {
		q.lowered.Store(false)
		return err
	}
	return nil
}

// around runs start, a fork, with tend's own limit back at the inherited
// one, so that the child inherits that: a child cannot be given it
// afterwards, since prlimit(2) on a process that has switched to another
// user (--user) needs CAP_SYS_RESOURCE, which container runtimes drop.
// tend's queue is uncapped only for the fork's few microseconds. Raising a
// soft limit back up to the hard one, which tend kept, needs no privilege.
func (q *queue) around(start func()) {
	if !q.lowered.Load() {
		start()
		return
	}
	lim := q.inherited
	_ = prlimit(0, &lim, nil) // as lower's own call succeeded: cannot fail
	defer func() {
		capped := unix.Rlimit{Cur: QueueLimit, Max: q.inherited.Max}
		_ = prlimit(0, &capped, nil) // the same call lower made
	}()
	start()
}

// prlimit is prlimit64(pid, RLIMIT_SIGPENDING, set, old) as a raw system
// call: it is made around each fork, under the lock that serialises them,
// where a call that tells the scheduler it may block would hand the P away
// for nothing.
func prlimit(pid int, set, old *unix.Rlimit) error {
	_, _, errno := unix.RawSyscall6(unix.SYS_PRLIMIT64, uintptr(pid), unix.RLIMIT_SIGPENDING,
		uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(old)), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
