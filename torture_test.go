package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The torture cases run with small numbers in every `go test`, and with the
// issue's numbers under `make torture` (TEND_TORTURE=1), which also collects
// each case's figure into a summary table (TEND_TORTURE_SUMMARY).

func torture() bool { return os.Getenv("TEND_TORTURE") == "1" }

func scale(small, full int) int {
	if torture() {
		return full
	}
	return small
}

// report prints a figure and adds it to the summary table.
func report(t *testing.T, name, figure, target string) {
	t.Helper()
	t.Logf("%s: %s (target: %s)", name, figure, target)
	if f := os.Getenv("TEND_TORTURE_SUMMARY"); f != "" {
		out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		fmt.Fprintf(out, "| %s | %s | %s |\n", name, figure, target)
	}
}

var reapedRE = regexp.MustCompile(`reaped=(\S+)`)

func stormTime(t *testing.T, init []string, n int) time.Duration {
	t.Helper()
	args := append(append([]string{"-pf", "--mount-proc"}, init...), fakeappBin, "storm", strconv.Itoa(n))
	out, err := exec.Command("unshare", args...).CombinedOutput()
	m := reapedRE.FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("%v: %v\n%s", init, err, out)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTortureOrphanStorm(t *testing.T) {
	n := scale(1000, 10000)
	tend := stormTime(t, []string{staticTendBin, "--"}, n)
	figure := fmt.Sprintf("%d orphans, 0 zombies after %s", n, tend.Round(time.Microsecond))
	if tini, err := exec.LookPath("tini-static"); err == nil {
		d := stormTime(t, []string{tini, "--"}, n)
		figure += fmt.Sprintf("; tini-static %s (%.2fx)", d.Round(time.Microsecond), float64(tend)/float64(d))
	}
	report(t, "orphan storm", figure, "0 zombies")
}

func TestTortureSignalStorm(t *testing.T) {
	n := scale(1000, 10000)
	// The app counts USR1s while a child keeps orphaning processes, so
	// SIGCHLD storms at tend as the USR1s arrive.
	p := startTend(t, opts{pid1: true}, "-vvv", "--", "sh", "-c",
		`(while :; do (true &); done) & exec "$FAKEAPP" signals SIGTERM 0`)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.stderr.wait(t, "realtime signals registered", 10*time.Second)
	sent := 0
	for i := 0; i < n; i++ {
		// After the TERM, tend may finish its stop and exit mid-storm.
		if err := syscall.Kill(p.pid, syscall.SIGUSR1); err != nil {
			break
		}
		sent++
		if i == n/2 {
			p.signal(syscall.SIGTERM)
		}
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !p.stdout.has("got SIGTERM") {
		t.Fatal("the TERM sent mid-storm never arrived")
	}
	got := strings.Count(p.stdout.String(), "got SIGUSR1")
	// Standard signals coalesce in the kernel while one is pending, so
	// only a lower bound holds: at least one got through before TERM.
	report(t, "signal storm", fmt.Sprintf("%d of %d USR1 sent were delivered (%.1f%%); TERM sent after %d: delivered", got, sent, 100*float64(got)/float64(sent), n/2+1), ">= 1 delivered, TERM always")
	if got < 1 {
		t.Fatalf("no USR1 delivered of %d", sent)
	}
}

func procStatus(pid int, key string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return -1
}

func fdCount(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents)
}

func TestTortureHealthUnderLoad(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--", fakeappBin, "signals", "TERM", "0")
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	rssBefore := procStatus(p.pid, "VmRSS")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			_ = c.Close() // test cleanup
		}
	}()
	for i := 0; i < 1000; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, c)
	}
	for i := 0; i < 20; i++ { // slowloris: a partial request head each
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte("GET /readyz HTTP/1.1\r\nX-Slow: a")) // never finished
		held = append(held, c)
	}
	var lat []time.Duration
	for i := 0; i < scale(200, 1000); i++ {
		start := time.Now()
		if code, _ := status(addr, "/readyz"); code != 200 {
			t.Fatalf("/readyz %d under load", code)
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	rssHeld := procStatus(p.pid, "VmRSS")
	report(t, "health under 1,020 held connections", fmt.Sprintf("/readyz p50 %s p99 %s; RSS %d kB idle, %d kB loaded", p50.Round(time.Microsecond), p99.Round(time.Microsecond), rssBefore, rssHeld), "p99 < 50ms")
	if p99 > 2*time.Second {
		t.Fatalf("p99 %s", p99)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}

func TestTortureLongRun(t *testing.T) {
	d := time.Duration(scale(3, 600)) * time.Second
	// 100 short children a second, each reaped by tend.
	p := startTend(t, opts{pid1: true}, "--", "sh", "-c",
		`trap 'exit 0' TERM; echo ready; while :; do i=0; while [ $i -lt 10 ]; do (true &); i=$((i+1)); done; sleep 0.1; done`)
	p.stdout.wait(t, "ready", 10*time.Second)
	time.Sleep(time.Second) // let the runtime settle before the first figure; this is a measurement window, not a synchronisation
	rss0, fd0 := procStatus(p.pid, "VmRSS"), fdCount(p.pid)
	time.Sleep(d)
	rss1, fd1 := procStatus(p.pid, "VmRSS"), fdCount(p.pid)
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
	report(t, fmt.Sprintf("long run (%s, 100 orphans/s)", d), fmt.Sprintf("RSS %d -> %d kB, fds %d -> %d", rss0, rss1, fd0, fd1), "flat")
	if fd1 != fd0 || rss1-rss0 > 4096 {
		t.Fatalf("tend leaks: RSS %d -> %d kB, fds %d -> %d", rss0, rss1, fd0, fd1)
	}
}

func TestTortureReadyzDuringOrphanStorm(t *testing.T) {
	n := scale(1000, 10000)
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--", "sh", "-c",
		`echo ready; read go; "$FAKEAPP" storm `+strconv.Itoa(n)+`; echo storm-done; exec "$FAKEAPP" signals TERM 0`)
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	// stdin is /dev/null: `read` returns at once, so the storm starts now.
	var lat []time.Duration
	for !p.stdout.has("storm-done") {
		start := time.Now()
		if code, _ := status(addr, "/readyz"); code != 200 {
			t.Fatalf("/readyz %d during the storm", code)
		}
		lat = append(lat, time.Since(start))
	}
	p.signal(syscall.SIGTERM)
	p.wait(30 * time.Second)
	if len(lat) == 0 {
		t.Fatal("no request completed during the storm")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	report(t, fmt.Sprintf("/readyz during a %d-orphan storm", n),
		fmt.Sprintf("%d requests, p50 %s p99 %s max %s", len(lat), lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond)), "p99 < 50ms")
}

// TestTortureStopUnderSignalStorm: a storm of mixed signals, with -vv and
// stderr on a pipe whose reader has stopped, then one TERM. The stop must
// begin at once (/readyz turns 503): TERM has its own channel, so the storm
// cannot crowd it out, and the loop never waits for a log write.
func TestTortureStopUnderSignalStorm(t *testing.T) {
	n := scale(20000, 200000)
	dir := t.TempDir()
	addr := freeAddr(t)
	// The only reader of tend's stderr never reads: after 64 KiB, every
	// write to it would block.
	// The pre-stop hook keeps the stop (and /readyz's 503) open long
	// enough to be seen: without it the app exits on TERM, and tend with
	// it, before the first poll can connect.
	p := startTend(t, opts{dir: dir, shell: `mkfifo f && { sleep 600 < f & echo $! > sleeper; } && exec "$TEND" -vv --health-addr ` + addr +
		` --pre-stop "sleep 0.5" -- "$FAKEAPP" signals SIGTERM 0 2> f`})
	t.Cleanup(func() {
		if b, err := os.ReadFile(dir + "/sleeper"); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL) // the stuck reader
			}
		}
	})
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	mixed := []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGALRM, syscall.SIGHUP, syscall.Signal(40), syscall.Signal(50)}
	sent := 0
	for i := 0; i < n; i++ {
		if err := syscall.Kill(p.pid, mixed[i%len(mixed)]); err != nil {
			t.Fatalf("tend died mid-storm after %d signals: %v", sent, err)
		}
		sent++
	}
	start := time.Now()
	p.signal(syscall.SIGTERM)
	waitStatus(t, addr, "/readyz", 503, 10*time.Second)
	took := time.Since(start)
	report(t, "stop under a signal storm", fmt.Sprintf("stop began %s after TERM, behind %d mixed signals, -vv on a stuck stderr", took.Round(100*time.Microsecond), sent), "within 100 ms")
	limit := 2 * time.Second // a shared CI machine in plain go test; the 100 ms under make torture
	if torture() {
		limit = 100 * time.Millisecond
	}
	if took > limit {
		t.Fatalf("the stop began %s after TERM", took)
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("want the app's 0 after TERM, got %d", code)
	}
}
