// Package reaper owns wait4(-1). It is the only code in tend that collects
// exit statuses: whoever starts a process subscribes to its exit through
// Start, before the process can possibly exit, and receives the status on a
// channel. Everything else that is reaped is an orphan, handed to the
// callback given to New the moment it is reaped.
//
// The reaper has no goroutine and no thread of its own: the event loop
// calls Reap on every SIGCHLD (signals coalesce, so Reap drains until
// nothing is left), and once after the app has started.
package reaper

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Exit is one reaped process and its wait status.
type Exit struct {
	Pid    int
	Status unix.WaitStatus
}

// Code maps a wait status to the shell convention: the exit status, or
// 128+N for a death by signal N.
func (e Exit) Code() int {
	switch {
	case e.Status.Exited():
		return e.Status.ExitStatus()
	case e.Status.Signaled():
		return 128 + int(e.Status.Signal())
	}
	// wait4 without WUNTRACED/WCONTINUED reports only terminations, so this
	// is unreachable; 255 keeps a bogus status from looking like success.
	return 255
}

// Reaper serialises process start and wait4(-1). Its zero value is not
// usable; build exactly one with New, in main.
type Reaper struct {
	// mu spans the fork plus the subscription, every wait4 call, and
	// every signal sent by pid: so a child that exits before Start
	// returns is still matched to its subscriber rather than being
	// mistaken for an orphan, and a pid is only ever signalled while it
	// is known to be unreaped, that is, still the child's own.
	mu   sync.Mutex
	subs map[int]*Child
	// orphan is called, under mu, for every reaped process that nobody
	// subscribed to, the moment it is reaped: nothing is lost in transit
	// when tend exits right after.
	orphan func(Exit)
	// observe, when set, is called under mu for every reaped process,
	// subscribed or not, before it is delivered (Observe).
	observe func(Exit)
	// aroundFork, when set, is called under mu just before each fork and
	// what it returns just after (AroundFork).
	aroundFork func() (after func())
	// noPidfd is set once clone(CLONE_PIDFD) has been refused; later
	// starts ask for no pidfd.
	noPidfd atomic.Bool
	// yield runs between reap chunks; see yield_linux.go.
	yield netYield
}

// New returns the reaper. There must be only one per process. orphan, if
// not nil, is called for each reaped orphan; it must not block.
func New(orphan func(Exit)) *Reaper {
	return &Reaper{subs: make(map[int]*Child), orphan: orphan}
}

// Observe has f called for every reaped process, the app and hooks
// included, the moment it is reaped and before its Child hears of it: the
// loop's trace lists each exit. Call it before the first Start; f must not
// block.
func (r *Reaper) Observe(f func(Exit)) { r.observe = f }

// AroundFork has f called, under the lock that serialises every start,
// just before each fork, and what f returns just after: tend lowers its own
// oom_score_adj and gives each child back the original (package
// oom). Call it before the first Start; f must not block.
func (r *Reaper) AroundFork(f func() (after func())) { r.aroundFork = f }

// reapChunk is how many processes Reap collects under one hold of the lock
// before it lets other goroutines run and the runtime poll the network:
// with GOMAXPROCS=1 a storm of 10,000 orphans would otherwise keep the
// health server and Start waiting until the whole storm is reaped.
const reapChunk = 64

// Reap collects every child that has exited, until wait4 reports that none
// is left to collect: one SIGCHLD may stand for many exits.
//
// Subscribed exits go to their Child; the rest go to the orphan callback.
// none is true when tend has no children left at all (ECHILD).
func (r *Reaper) Reap() (none bool, err error) {
	for {
		none, more, err := r.reapSome(reapChunk)
		if !more {
			return none, err
		}
		r.yield.yield()
	}
}

// reapSome collects up to max exits under the lock; more reports that it
// stopped at max with possibly more to collect.
func (r *Reaper) reapSome(max int) (none, more bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < max; i++ {
		var ws unix.WaitStatus
		pid, werr := wait4NoHang(&ws)
		switch {
		case werr == unix.EINTR:
			i--
			continue
		case werr == unix.ECHILD:
			return true, false, nil
		case werr != 0:
			return false, false, fmt.Errorf("wait4: %w", werr)
		case pid <= 0:
			return false, false, nil
		}
		e := Exit{Pid: pid, Status: ws}
		if r.observe != nil {
			r.observe(e)
		}
		if c, ok := r.subs[pid]; ok {
			delete(r.subs, pid)
			c.reaped.Store(true)
			c.done <- e // buffered 1 and each pid is reaped once: never blocks
			continue
		}
		if r.orphan != nil {
			r.orphan(e)
		}
	}
	return false, true, nil
}

// wait4NoHang is wait4(-1, ws, WNOHANG) as a raw system call. It cannot
// block, so it need not tell the scheduler that it is in a system call; and
// a goroutine that never enters one never makes the runtime hand its P to
// another thread, which it might have to create (see lifecycle's thread
// budget).
func wait4NoHang(ws *unix.WaitStatus) (int, unix.Errno) {
	all := -1
	pid, _, errno := unix.RawSyscall6(unix.SYS_WAIT4, uintptr(all), uintptr(unsafePointer(ws)), unix.WNOHANG, 0, 0, 0)
	return int(pid), errno
}

// Start starts cmd and subscribes to its exit; see start_linux.go.
func (r *Reaper) Start(cmd *exec.Cmd) (*Child, error) { return r.start(cmd) }

// ErrStdio reports a Cmd whose stdio would need copying goroutines: the
// reaper starts processes with their stdio as files, or /dev/null.
var ErrStdio = errors.New("reaper: stdio must be nil or *os.File")
