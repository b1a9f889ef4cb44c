// Command sigprof shows that no Go program can receive SIGPROF, the one
// signal of dumb-init's test_proxies_signals tend cannot forward. It asks
// os/signal for SIGPROF and two realtime signals, sends itself SIGPROF,
// then 40 and 41, and prints each signal it receives: "40 41", never 27.
// The runtime consumes every SIGPROF for its profiler and returns before
// os/signal can see it (runtime/signal_unix.go, sighandler:
// `if sig == _SIGPROF { ...; return }`).
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 8)
	signal.Notify(c, syscall.SIGPROF, syscall.Signal(40), syscall.Signal(41))
	// 40 after SIGPROF, and 41 only once 40 has arrived: by then the
	// runtime has long handled the SIGPROF.
	for _, s := range []syscall.Signal{syscall.SIGPROF, 40, 41} {
		_ = syscall.Kill(os.Getpid(), s) // to oneself: cannot fail
		for s != syscall.SIGPROF {
			got := (<-c).(syscall.Signal)
			fmt.Print(int(got), " ")
			if got == s {
				break
			}
		}
	}
	fmt.Println()
}
