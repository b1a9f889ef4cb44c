package main_test

import (
	"bufio"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestTortureTermBehindRealtimeFlood is issue 20's item 4 with its figures:
// the init, as PID 1, is stopped, sent n realtime signals cycling over
// 35..64, then TERM, and continued; the figure is TERM to exit, tend beside
// tini-static, median and max over the rounds (5 under make torture). A
// second phase floods a running tend while a client polls /livez, and
// reports the slowest answer. Only a hang fails the test: the figures are
// for the summary, not asserted.
func TestTortureTermBehindRealtimeFlood(t *testing.T) {
	n, rounds := scale(20000, 200000), scale(1, 5)
	inits := map[string][]string{"tend": {staticTendBin}}
	if p, err := exec.LookPath("tini-static"); err == nil {
		inits["tini-static"] = []string{p}
	}
	took := map[string][]time.Duration{}
	var livez []time.Duration
	for r := 0; r < rounds; r++ {
		for _, name := range []string{"tend", "tini-static"} {
			if init, ok := inits[name]; ok {
				took[name] = append(took[name], termBehindFlood(t, init, n, ""))
			}
		}
		addr := freeAddr(t)
		var worst time.Duration
		termBehindFlood(t, []string{staticTendBin, "--health-addr", addr}, n, addr, &worst)
		livez = append(livez, worst)
	}
	for _, name := range []string{"tend", "tini-static"} {
		if d := took[name]; len(d) > 0 {
			report(t, fmt.Sprintf("TERM to exit behind %d realtime signals sent to a stopped PID 1, %s", n, name),
				medianMax(d), "within about 100 ms (tini-static's figure beside)")
		}
	}
	report(t, fmt.Sprintf("slowest /livez while %d realtime signals flood tend", n), medianMax(livez), "within 1 s")
}

// termBehindFlood runs init over fakeapp as PID 1 and floods it with n
// realtime signals; with addr empty the init is stopped during the flood
// and TERM's time to exit is returned, else /livez is polled during a
// flood of the running init and the slowest answer goes to worst.
func termBehindFlood(t *testing.T, init []string, n int, addr string, worst ...*time.Duration) time.Duration {
	t.Helper()
	args := append(append([]string{"-pf", "--mount-proc"}, init...), "--", fakeappBin, "signals", "SIGTERM", "0")
	cmd := exec.Command("unshare", args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }() // the code is not the figure
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	lines := bufio.NewReader(out)
	if s, err := lines.ReadString('\n'); err != nil || !strings.HasPrefix(s, "ready") {
		t.Fatalf("%v: no ready line: %q %v", init, s, err)
	}
	go func() {
		for {
			if _, err := lines.ReadString('\n'); err != nil {
				return
			}
		}
	}()
	p := &tendProc{t: t, done: make(chan struct{})}
	pid := p.childOf(cmd.Process.Pid)
	if addr != "" {
		waitStatus(t, addr, "/livez", 200, 10*time.Second)
	}
	stopPolling := make(chan struct{})
	var wg sync.WaitGroup
	if addr != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stopPolling:
					return
				default:
				}
				start := time.Now()
				status(addr, "/livez") // a refused or failed answer counts by its time too
				if d := time.Since(start); d > *worst[0] {
					*worst[0] = d
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	} else if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := syscall.Kill(pid, syscall.Signal(35+i%30)); err != nil {
			t.Fatalf("%v died mid-flood after %d signals: %v", init, i, err)
		}
	}
	close(stopPolling)
	wg.Wait()
	start := time.Now()
	_ = syscall.Kill(pid, syscall.SIGTERM) // a failure shows as no exit below
	_ = syscall.Kill(pid, syscall.SIGCONT)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("%v: no exit within 60 s of TERM behind %d realtime signals", init, n)
	}
	return time.Since(start)
}

func medianMax(d []time.Duration) string {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("median %s, max %s (%d rounds)", s[len(s)/2].Round(100*time.Microsecond), s[len(s)-1].Round(100*time.Microsecond), len(s))
}
