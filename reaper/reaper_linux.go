// Package reaper owns wait4(-1). It is the only code in tend that collects
// exit statuses: whoever starts a process subscribes to its exit through
// Start, before the process can possibly exit, and receives the status on a
// channel. Everything else that is reaped is an orphan, handed to the
// callback given to New the moment it is reaped.
package reaper

import (
	"errors"
	"fmt"
	"os"
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
	// mu spans cmd.Start plus the subscription, and every wait4 call, so a
	// child that exits before Start returns is still matched to its
	// subscriber rather than being mistaken for an orphan.
	mu   sync.Mutex
	subs map[int]*Child
	kick chan struct{} // wakes Run when it has no child to wait for
	// orphan is called, under mu, for every reaped process that nobody
	// subscribed to, the moment it is reaped: nothing is lost in transit
	// when tend exits right after.
	orphan func(Exit)
}

// New returns the reaper. There must be only one per process. orphan, if
// not nil, is called for each reaped orphan; it must not block.
func New(orphan func(Exit)) *Reaper {
	return &Reaper{subs: make(map[int]*Child), kick: make(chan struct{}, 1), orphan: orphan}
}

// Child is a process started through the reaper.
type Child struct {
	Pid    int
	r      *Reaper
	proc   *os.Process
	done   chan Exit
	reaped atomic.Bool
}

// Reaped reports whether the reaper has collected the child. From then on
// its pid, and a process group named after it, may belong to someone else,
// so nothing may be sent to -Pid any more.
func (c *Child) Reaped() bool { return c.reaped.Load() }

// Done delivers the child's exit exactly once, after the reaper collects it.
func (c *Child) Done() <-chan Exit { return c.done }

// Signal sends sig through os.Process, which is pidfd-backed on kernels
// from 5.4 where seccomp allows pidfd_open. It also holds the reaper's
// lock and sends nothing once the child is reaped: without a pidfd (an old
// kernel, or a seccomp profile that refuses the pidfd calls) os.Process
// falls back to the plain pid, and only an unreaped child guarantees that
// the pid is still its own. A child that is already gone counts as
// success: the caller's intent is moot.
func (c *Child) Signal(sig os.Signal) error {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if c.reaped.Load() {
		return nil
	}
	err := c.proc.Signal(sig)
	if err == nil || errors.Is(err, os.ErrProcessDone) || errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// SignalGroup sends sig to the process group that the child leads. It holds
// the reaper's lock and sends nothing once the child is reaped: only an
// unreaped leader guarantees that its pid, and so the group's id, has not
// been reused. A group that is already empty counts as success.
func (c *Child) SignalGroup(sig unix.Signal) error {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if c.reaped.Load() {
		return nil
	}
	if err := unix.Kill(-c.Pid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("kill(-%d, %d): %w", c.Pid, sig, err)
	}
	return nil
}

// Release frees the pidfd that os.Process holds. Call it once Done has
// delivered; os/exec's Wait is never used, because its status would race
// with wait4(-1).
func (c *Child) Release() {
	_ = c.proc.Release() // only fails if already released, which is harmless
}

// ErrStdio reports a Cmd whose stdio would make os/exec start copying
// goroutines, which only cmd.Wait could join.
var ErrStdio = errors.New("reaper: stdio must be nil or *os.File")

// Start starts cmd and subscribes to its exit. Its stdio must be nil or
// *os.File: any other reader or writer makes os/exec start goroutines that
// only cmd.Wait would join, and Wait must never be called here.
func (r *Reaper) Start(cmd *exec.Cmd) (*Child, error) {
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if !fileOrNil(f) {
			return nil, ErrStdio
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cmd.Start(); err != nil {
		// On an exec failure os/exec has already collected the child
		// itself; wait4(-1) could not run meanwhile because we hold mu.
		return nil, err
	}
	c := &Child{Pid: cmd.Process.Pid, r: r, proc: cmd.Process, done: make(chan Exit, 1)}
	r.subs[c.Pid] = c
	r.Kick() // Run may be idle for want of children
	return c, nil
}

func fileOrNil(v any) bool {
	switch f := v.(type) {
	case nil:
		return true
	case *os.File:
		return f != nil
	}
	return false
}

// Reap collects every child that has exited, until wait4 reports that none
// is left to collect: one wake-up may stand for many exits. Run calls it
// whenever the kernel reports an exit; others may call it too.
//
// Subscribed exits go to their Child; the rest go to the orphan callback.
// none is true when tend has no children left at all (ECHILD).
func (r *Reaper) Reap() (none bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var ws unix.WaitStatus
		pid, werr := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(werr, unix.EINTR):
			continue
		case errors.Is(werr, unix.ECHILD):
			return true, nil
		case werr != nil:
			return false, fmt.Errorf("wait4: %w", werr)
		case pid <= 0:
			return false, nil
		}
		e := Exit{Pid: pid, Status: ws}
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
}

// Batch reports the outcome of one Reap to the event loop; the orphans
// themselves went to the callback.
type Batch struct {
	None bool // no child left at all
	Err  error
}

// Kick wakes Run when it is idle because tend had no children: a process
// was started, or a SIGCHLD says an adopted process (one that joined the
// namespace with setns) has exited. Extra kicks are harmless.
func (r *Reaper) Kick() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Run collects exits as soon as the kernel reports them, without waiting
// for SIGCHLD to travel through the Go runtime's signal machinery: it
// blocks in waitid(P_ALL, WEXITED|WNOWAIT), which only peeks, and then
// reaps everything with Reap under the lock. It sends each batch to out and
// returns once done is closed; a stale Run that wakes later reaps nothing.
// Run is still the only reaping loop, and Reap remains safe to call from
// the event loop, since both take the same lock.
func (r *Reaper) Run(done <-chan struct{}, out chan<- Batch) {
	send := func(b Batch) bool {
		select {
		case out <- b:
			return true
		case <-done:
			return false
		}
	}
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOWAIT, nil)
		select {
		case <-done:
			return
		default:
		}
		var b Batch
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err == nil:
			none, rerr := r.Reap()
			if !send(Batch{None: none, Err: rerr}) {
				return
			}
			continue
		case errors.Is(err, unix.ECHILD):
			b = Batch{None: true}
		default:
			b = Batch{Err: fmt.Errorf("waitid: %w", err)}
		}
		// Nothing to wait for until a child is started or adopted.
		if !send(b) {
			return
		}
		select {
		case <-r.kick:
		case <-done:
			return
		}
	}
}
