package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// forkbomb forks until fork fails with EAGAIN at the pid limit, and keeps
// trying, so that every pid that frees up is taken again at once. It exits
// with code on SIGTERM. fakeapp is a Go program under the same pid limit as
// tend, so it takes the precautions tend takes (GOMAXPROCS=1, every thread
// created before the first fork) and forks with a raw clone, which never
// blocks its thread in the runtime's sense.
func forkbomb(code int, hold time.Duration, orphans bool) int {
	runtime.GOMAXPROCS(1)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	reserveThreads(8)
	bombHold = syscall.NsecToTimespec(int64(hold))
	fmt.Println("bombing")
	for i := 0; ; i++ {
		pid, _, errno := syscall.RawSyscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0)
		if errno == 0 && pid == 0 {
			bombChild(orphans)
		}
		for {
			// Reap our own children (and, with orphans, the middle
			// ones, which exit at once).
			r, _, e := syscall.RawSyscall6(syscall.SYS_WAIT4, ^uintptr(0), 0, syscall.WNOHANG, 0, 0, 0)
			if e != 0 || r == 0 {
				break
			}
		}
		if errno != 0 || i%64 == 0 {
			select {
			case <-term:
				return code
			default:
			}
			runtime.Gosched() // let os/signal deliver
		}
	}
}

var (
	bombHold syscall.Timespec
	sigDfl   [4]uint64 // struct sigaction, all zero: SIG_DFL
)

// bombChild runs in the child of a raw clone: a copy of this process with
// one thread and the runtime in whatever state the parent's other threads
// left it. So it makes raw system calls only, on no more stack than it has,
// and never returns. SIGTERM gets its default action back, so that tend's
// drain ends the child.
//
//go:nosplit
//go:norace
func bombChild(orphan bool) {
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGTERM), uintptr(unsafe.Pointer(&sigDfl)), 0, 8, 0, 0)
	if orphan {
		pid, _, errno := syscall.RawSyscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0)
		if errno != 0 || pid != 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
	}
	syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&bombHold)), 0, 0)
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
}

// reserveThreads makes the runtime create threads until the process has
// want, then returns them to its idle list: tend's thread/thread_linux.go in
// short (a locked goroutine that parks hands its P to another thread).
func reserveThreads(want int) {
	release := make(chan struct{})
	done := make(chan struct{})
	n := 0
	for i := 0; i < want && threads() < want; i++ {
		locked := make(chan struct{})
		n++
		go func() {
			runtime.LockOSThread()
			close(locked)
			<-release
			runtime.UnlockOSThread()
			done <- struct{}{}
		}()
		<-locked
	}
	close(release)
	for ; n > 0; n-- {
		<-done
	}
}

func threads() int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	return len(ents)
}
