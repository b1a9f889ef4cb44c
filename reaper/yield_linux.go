package reaper

import (
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// netYield lets the runtime poll the network between two reap chunks.
//
// runtime.Gosched is not enough: it puts the reaping goroutine on the
// global run queue, and the scheduler's findRunnable takes it from there
// before it reaches its non-blocking netpoll, which it tries only when both
// run queues are empty. With one P (tend's setting) the health server's
// connections then wait for sysmon's netpoll, up to about 10 ms apart, for
// the whole storm. Parking instead on a pipe that the netpoller itself
// reports readable empties the run queues, so the same poll that wakes the
// reaper also wakes every goroutine whose socket is ready. A timer would
// do too, but the runtime's epoll wait rounds anything under 1 ms up to
// 1 ms; the pipe costs a write, a read and an epoll_wait, a few µs.
//
// The pipe and its goroutine are made on the first storm that needs a
// yield, not at start-up; the goroutine blocks in the netpoller, not in a
// system call, so it takes no thread of lifecycle's budget.
type netYield struct {
	once sync.Once
	w    int           // the pipe's write end, raw and non-blocking
	wake chan struct{} // the reader's signal that the poll has happened
	ok   bool          // false: the pipe could not be made; Gosched instead
}

func (y *netYield) init() {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return // EMFILE and the like: Gosched still lets the health server run at sysmon's pace
	}
	r := os.NewFile(uintptr(p[0]), "reaper-yield") // non-blocking: os puts it in the netpoller
	y.w, y.wake, y.ok = p[1], make(chan struct{}), true
	go func() {
		var b [16]byte
		for {
			n, err := r.Read(b[:])
			if err != nil {
				return // unreachable: nobody closes the pipe (one reaper per process)
			}
			for ; n > 0; n-- { // one byte per yield; more than one only if a write outran the read
				y.wake <- struct{}{}
			}
		}
	}()
}

// yield parks the calling goroutine until the runtime has polled the
// network once (and run what that made runnable), or just Goscheds.
func (y *netYield) yield() {
	y.once.Do(y.init)
	if !y.ok {
		runtime.Gosched()
		return
	}
	b := [1]byte{1}
	// A raw write: the pipe is non-blocking and never holds more than a few
	// bytes, so it cannot block; see wait4NoHang for why raw.
	if _, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(y.w), uintptr(unsafe.Pointer(&b[0])), 1); errno != 0 {
		runtime.Gosched() // EAGAIN cannot happen with one byte in flight; yield anyway
		return
	}
	<-y.wake
}
