// Package thread creates, before the app starts, every OS thread tend can
// need, so that a full pid limit can never make the Go runtime fail to
// start one.
package thread

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"

	"github.com/tend-init/tend/reaper"
)

// A full pid limit must not kill tend (docs/design.md, "Threads and
// GOMAXPROCS"; RELIABILITY.md, "A full pid limit"). Every OS thread
// counts against pids.max, and the Go runtime creates one (newm) whenever it
// has Go code to run, or a P to hand over, and no idle thread: a goroutine
// that blocks in a system call, or a locked goroutine that parks, gives its
// P to another thread (handoffp, startm). Under a full limit clone fails
// with EAGAIN and the runtime dies with "fatal error: newosproc". The
// runtime never frees an idle thread, so tend creates, before the app
// starts, as many threads as it can ever need at once; afterwards a thread
// only goes back and forth between busy and idle.
//
// That number is bounded because what can be in a system call at once is
// bounded:
//   - GOMAXPROCS is 1, whatever the GOMAXPROCS variable says: that variable
//     is meant for the app, which inherits it untouched. One thread runs Go
//     code, and restarting the world after a GC needs no thread for a
//     second P. Setting it also turns off the runtime's automatic
//     GOMAXPROCS updates, which could add Ps later. (With 2 Ps and a
//     budget of 17, a busy tend still made the runtime start an 18th.)
//   - the event loop makes only raw system calls while the app lives and
//     while the tree drains: wait4(WNOHANG), kill, pidfd_open,
//     pidfd_send_signal, close, and the reads of /proc that find a
//     subreaper's descendants, none of which can block for long (reaper).
//     A raw call never tells the scheduler it is in a system call, so its
//     P is never handed to another thread. Only writing the termination
//     message, its last step, is an ordinary (blocking) file write;
//   - reaping has no thread of its own: the loop reaps on SIGCHLD;
//   - log lines are written by one goroutine (the Logger's queue);
//   - processes are started one at a time, under the reaper's lock;
//   - the health server makes one system call at a time, however many
//     connections are open, and reads /proc for one scrape at a time
//     (probe's gatedConn).
//
// Budget counts them. It is checked against a fork bomb in a pids
// cgroup with every feature busy at once (TestTorturePidLimit), and under
// load without a limit (TestTortureThreadsFixedAfterStart).

// threadsRuntime: sysmon; the template thread, started by the first
// LockOSThread (os/signal's); os/signal's ensureSigM goroutine, locked to
// its thread; os/signal's signal_recv, asleep in a futex. A Go PID 1 that
// uses os/signal has these four whatever it does.
const threadsRuntime = 4

// threadsP: for the one P, the thread that runs it, and the one handoffp
// wakes while a thread whose system call returned to find its P taken is
// still on its way to the idle list.
const threadsP = 2

// threadsPoll: the thread that waits in epoll_wait, without a P, for the
// network and the timers while the P is idle.
const threadsPoll = 1

// threadsLog: the Logger's writer, in write(2) on a stderr that may block.
const threadsLog = 1

// Needs is what tend was configured to run that can hold a thread in a
// blocking system call.
type Needs struct {
	TerminationMessage bool // the loop's one ordinary write, at its end
	Health             bool // the health endpoint
	Hooks              int  // hook goroutines that can run at once
	Relay              bool // a hook runs a command, whose output the Relay copies
	Probes             int  // probe goroutines, one per check
	Watcher            bool // --reload-on: the watcher's reads of the watched files
}

// Budget is the most threads tend can need at once with n, with
// GOMAXPROCS=1. Each goroutine that can be in a blocking system call is
// counted once.
func Budget(n Needs) int {
	b := threadsRuntime + threadsP + threadsPoll + threadsLog
	if n.TerminationMessage {
		b++ // the loop itself, writing the message
	}
	if n.Health {
		b += 3 // the accept loop, the gated connections, and one scrape's /proc reads
	}
	b += n.Hooks
	if n.Watcher {
		b++ // its inotify reads go through the netpoller; its file reads do not
	}
	// The hooks' Relay: its one copier, in write(2) on a stdout or stderr
	// that may block. Hook and probe output pipes are read through the
	// netpoller, which costs no thread.
	if n.Relay {
		b++
	}
	// An exec check forks under the reaper's lock, an http or tcp check
	// dials on its own.
	return b + n.Probes
}

// Reserve sets GOMAXPROCS to 1 and makes the runtime create want threads
// (Budget), so that none is created once the app can fill the pid limit.
// Call it after signals.Listen, before the app starts. It returns the
// threads tend has (-1: unknown).
func Reserve(want int) (have int) {
	runtime.GOMAXPROCS(1) // done by internal/oneproc already; kept so the budget's premise is stated here
	return pinThreads(want)
}

// pinThreads parks goroutines, each locked to its own thread, until the
// process has want threads, then lets them all go: their threads join the
// runtime's idle list, where they stay. Parking a locked goroutine hands
// its P straight to another thread (stoplockedm), so each one costs no
// more than a thread creation. It starts as many as are missing at once,
// then counts again: one round per shortfall, not one per thread. The
// count is read with raw system calls, so reading it cannot make the
// runtime start a thread of its own. Without /proc it pins want
// goroutines, which is more than enough. It returns the thread count
// reached, or -1.
func pinThreads(want int) int {
	release := make(chan struct{})
	var wg sync.WaitGroup
	n := threadCount()
	if n < 0 {
		n = 0 // unknown: pin want
	}
	for round := 0; n < want && round < 3; round++ {
		missing := want - n
		locked := make(chan struct{}, missing)
		for i := 0; i < missing; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				locked <- struct{}{}
				<-release
				// Unlocked before returning, or the runtime would
				// destroy the thread along with the goroutine.
				runtime.UnlockOSThread()
			}()
		}
		for i := 0; i < missing; i++ {
			<-locked
		}
		if n = threadCount(); n < 0 {
			break
		}
	}
	close(release)
	wg.Wait()
	return threadCount()
}

// threadCount is the Threads: line of /proc/self/status, or -1 when it
// cannot be read. Raw system calls: see pinThreads.
func threadCount() int {
	var buf [4096]byte
	status, err := reaper.ReadRaw("/proc/self/status", buf[:])
	if err != nil {
		return -1
	}
	_, rest, ok := bytes.Cut(status, []byte("\nThreads:"))
	if !ok {
		return -1
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	n, err := strconv.Atoi(string(bytes.TrimSpace(line)))
	if err != nil {
		return -1
	}
	return n
}
