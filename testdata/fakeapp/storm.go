package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// storm runs "spawn n" and waits for tend to reap every orphan it leaves.
func storm(n int) int {
	self, _ := os.Executable()
	start := time.Now()
	p, err := os.StartProcess(self, []string{"fakeapp", "spawn", strconv.Itoa(n)}, &os.ProcAttr{Files: []*os.File{nil, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if st, err := p.Wait(); err != nil || !st.Success() {
		fmt.Fprintln(os.Stderr, "spawn failed:", err, st)
		return 1
	}
	handed := time.Now()
	deadline := handed.Add(30 * time.Second)
	for time.Now().Before(deadline) {
		zombies, eof := countProcs()
		if zombies == 0 && eof == 0 {
			fmt.Printf("storm n=%d spawn=%s reaped=%s\n", n, handed.Sub(start), time.Since(handed))
			return 0
		}
		time.Sleep(time.Millisecond)
	}
	z, e := countProcs()
	fmt.Printf("storm n=%d timeout zombies=%d left=%d\n", n, z, e)
	return 1
}

// countProcs counts the zombies, and the live "eofwait" processes, among
// the children of this process's parent: that is where orphans land when the
// parent is PID 1 or a subreaper. Looking only there keeps other processes
// on a shared machine out of the count.
func countProcs() (zombies, eofwait int) {
	ppid := strconv.Itoa(os.Getppid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[1] != ppid {
			continue
		}
		if f[0] == "Z" {
			zombies++
			continue
		}
		if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(cmd), "eofwait") {
			eofwait++
		}
	}
	return zombies, eofwait
}
