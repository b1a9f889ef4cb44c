package lifecycle

import (
	"os"
	"runtime"
	"sync"
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
// That number is bounded because what can block at once is bounded:
//   - GOMAXPROCS is 1, whatever the GOMAXPROCS variable says: that variable
//     is meant for the app, which inherits it untouched. One thread runs Go
//     code, and restarting the world after a GC needs no thread for a
//     second P. Setting it also turns off the runtime's automatic
//     GOMAXPROCS updates, which could add Ps later. (With 2 Ps and a
//     budget of 17, the load below still made the runtime start an 18th.)
//   - log lines are written by one goroutine (the Logger's queue);
//   - processes are started one at a time, under the reaper's lock;
//   - the health server makes one system call at a time, however many
//     connections are open, and reads /proc for one scrape at a time
//     (probe's gatedConn).
//
// threadBudget counts them. It was checked against a fork bomb in a pids
// cgroup with every feature busy at once (hooks, probes every 20 ms, four
// clients scraping /metrics and /readyz, two signals every 2 ms): with only
// the bomb limited, so that tend could have grown, it never went beyond
// the budget; with fewer threads reserved it did.

// Threads that, once the event loop runs, are never idle.
const (
	// threadsRuntime: sysmon; the template thread, started by the first
	// LockOSThread (os/signal's); os/signal's ensureSigM goroutine, locked
	// to its thread; os/signal's signal_recv, asleep in a futex.
	threadsRuntime = 4
	// threadsReaper: reaper.Run, which blocks in waitid for good.
	threadsReaper = 1
)

// threadsP: for the one P, the thread that runs it, and the one handoffp
// wakes while the previous one is still on its way to the idle list.
const threadsP = 2

// threadsCore: the thread that waits in epoll_wait, without a P, for the
// network and the timers; the event loop, in a system call (kill, wait4,
// pidfd_send_signal); and the Logger's writer, in write(2) on a stderr
// that may block.
const threadsCore = 3

// threadBudget is the most threads tend can need at once with cfg, with
// GOMAXPROCS=1. Each goroutine that can be in a system call is counted once.
func threadBudget(cfg *Config) int {
	n := threadsRuntime + threadsReaper + threadsP + threadsCore
	if cfg.HealthAddr != "" {
		n += 3 // the accept loop, the gated connections, and one scrape's /proc reads
	}
	// Hook goroutines: a pre-stop can start while a cancelled post-start
	// is still being killed; a post-stop runs alone, after both.
	switch {
	case len(cfg.PostStart) > 0 && len(cfg.PreStop) > 0:
		n += 2
	case len(cfg.PostStart) > 0, len(cfg.PreStop) > 0, len(cfg.PostStop) > 0:
		n++
	}
	// Probe goroutines, one per check; an exec check forks under the
	// reaper's lock, an http or tcp check dials on its own.
	return n + len(cfg.Checks)
}

// reserveThreads sets GOMAXPROCS to 1 and makes the runtime create the
// threads that tend will need, so that none is created once the app can
// fill the pid limit. Call it after signals.Listen, before the app starts.
// It returns the threads wanted and the threads tend has (-1: unknown).
func reserveThreads(cfg *Config) (want, have int) {
	runtime.GOMAXPROCS(1)
	want = threadBudget(cfg)
	return want, pinThreads(want)
}

// pinThreads parks goroutines, each locked to its own thread, until the
// process has want threads, then lets them all go: their threads join the
// runtime's idle list, where they stay. Parking a locked goroutine hands
// its P straight to another thread (stoplockedm), so each one costs no
// more than a thread creation. The count may end a thread or two above
// want: reading /proc/self/task is itself a system call, which can make
// the runtime start one more. Without /proc it pins want goroutines,
// which is more than enough. It returns the thread count reached, or -1.
func pinThreads(want int) int {
	release := make(chan struct{})
	var wg sync.WaitGroup
	n := threadCount()
	for i := 0; i < want && n < want; i++ {
		locked := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			close(locked)
			<-release
			// Unlocked before returning, or the runtime would
			// destroy the thread along with the goroutine.
			runtime.UnlockOSThread()
		}()
		<-locked
		// With one P the goroutine has parked, and its thread has
		// handed the P on, by the time this one runs again.
		n = threadCount()
	}
	close(release)
	wg.Wait()
	return threadCount()
}

// threadCount is the number of threads in this process, or -1 when
// /proc/self/task cannot be read.
func threadCount() int {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return -1
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return -1
	}
	return len(names)
}
