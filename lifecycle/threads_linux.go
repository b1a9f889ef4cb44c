package lifecycle

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/reaper"
)

// A full pid limit must not kill tend (CONVENTIONS B.13). Every OS thread
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
// threadBudget counts them. It is checked against a fork bomb in a pids
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

// threadBudget is the most threads tend can need at once with cfg, with
// GOMAXPROCS=1. Each goroutine that can be in a blocking system call is
// counted once.
func threadBudget(cfg *plan.Config) int {
	n := threadsRuntime + threadsP + threadsPoll + threadsLog
	if cfg.TerminationMessagePath != "" {
		n++ // the loop itself, writing the message
	}
	if cfg.HealthAddr != "" {
		n += 3 // the accept loop, the gated connections, and one scrape's /proc reads
	}
	// Hook goroutines: a pre-stop can start while a cancelled post-start
	// is still being killed; a post-stop runs alone, after both.
	switch {
	case len(cfg.PostStart) > 0 && len(cfg.PreStop) > 0:
		n += 2
	case len(cfg.PreStart) > 0, len(cfg.PostStart) > 0, len(cfg.PreStop) > 0, len(cfg.PostStop) > 0:
		n++
	}
	// The hooks' Relay: its one copier, in write(2) on a stdout or stderr
	// that may block. Hook and probe output pipes are read through the
	// netpoller, which costs no thread.
	if hasCommand(cfg.PreStart, cfg.PostStart, cfg.PreStop, cfg.PostStop) {
		n++
	}
	// Probe goroutines, one per check; an exec check forks under the
	// reaper's lock, an http or tcp check dials on its own.
	return n + len(cfg.Checks)
}

// hasCommand reports whether a hook runs a command, whose output the Relay
// passes on.
func hasCommand(hs ...[]hooks.Action) bool {
	for _, acts := range hs {
		for _, a := range acts {
			if _, ok := a.(hooks.Command); ok {
				return true
			}
		}
	}
	return false
}

// reserveThreads sets GOMAXPROCS to 1 and makes the runtime create the
// threads that tend will need, so that none is created once the app can
// fill the pid limit. Call it after signals.Listen, before the app starts.
// It returns the threads wanted and the threads tend has (-1: unknown).
func reserveThreads(cfg *plan.Config) (want, have int) {
	runtime.GOMAXPROCS(1) // done by internal/oneproc already; kept so the budget's premise is stated here
	want = threadBudget(cfg)
	return want, pinThreads(want)
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
