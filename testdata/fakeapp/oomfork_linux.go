package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// oomfork starts n children that each touch kb KiB of their own memory and
// hold it until this process lets them go: an app that fills its memory
// cgroup with many small processes, for the OOM killer to choose among.
// Once every child is holding its memory or has died, it releases the
// survivors, collects them all, prints "oomfork: N children, K killed by
// SIGKILL" and exits 0. It never allocates much itself, so that the
// kernel's choice is between tend and the children.
func oomfork(n, kb int) int {
	ready, readyW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hold, holdW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	self, _ := os.Executable()
	pids := map[int]bool{}
	for i := 0; i < n; i++ {
		attr := &syscall.ProcAttr{Files: []uintptr{hold.Fd(), readyW.Fd(), 2}}
		pid, err := syscall.ForkExec(self, []string{"fakeapp", "oomhold", strconv.Itoa(kb)}, attr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oomfork: fork:", err)
			break
		}
		pids[pid] = true
	}
	_ = readyW.Close() // only the children write; the parent's copy would hide nothing
	_ = hold.Close()   // the children hold the read end
	killed, done, held := 0, 0, 0
	collect := func(flags int) {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, flags, nil)
			if err != nil || pid <= 0 {
				return
			}
			if pids[pid] {
				done++
				if ws.Signaled() && ws.Signal() == syscall.SIGKILL {
					killed++
				}
			}
		}
	}
	buf := make([]byte, 64)
	for deadline := time.Now().Add(60 * time.Second); held+done < len(pids) && time.Now().Before(deadline); {
		_ = ready.SetReadDeadline(time.Now().Add(50 * time.Millisecond)) // a pipe: deadlines work
		m, _ := ready.Read(buf)
		held += m
		collect(syscall.WNOHANG)
	}
	fmt.Printf("oomfork: %d holding\n", held)
	_ = holdW.Close() // EOF: the survivors exit
	for done < len(pids) {
		before := done
		collect(0)
		if done == before {
			break
		}
	}
	fmt.Printf("oomfork: %d children, %d killed by SIGKILL\n", len(pids), killed)
	return 0
}

// oomhold touches kb KiB, writes one byte to stdout, and waits for EOF on
// stdin.
func oomhold(kb int) int {
	mem := make([]byte, kb<<10)
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1
	}
	_, _ = os.Stdout.Write([]byte{1})
	_, _ = os.Stdin.Read(make([]byte, 1))
	return int(mem[0]) - 1
}
