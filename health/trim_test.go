package health

import (
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssAnon is this process's anonymous resident memory in KiB.
func rssAnon(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err == nil {
				return n
			}
		}
	}
	t.Skip("no RssAnon in /proc/self/status")
	return 0
}

// heldKiB is what the Go heap and goroutine stacks hold from the kernel,
// in KiB: what a trim gives back. Under -race, RSS is mostly the race
// detector's shadow memory, which no trim returns, so the test judges the
// runtime's own figures and only logs RssAnon.
func heldKiB() int {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int((m.HeapSys - m.HeapReleased + m.StackSys) >> 10)
}

// TestMemoryGivenBackAfterFlood: once a slowloris flood is over, the memory
// its connections took (a goroutine stack and buffers each) goes back to
// the kernel. It stayed: 4,000 connections took tend from 7 to about 40 MB
// of RSS for good, since an idle tend allocates too little for the
// runtime to collect and return it by itself. The wait for the memory to
// fall is bounded; how fast it falls is logged, not asserted.
func TestMemoryGivenBackAfterFlood(t *testing.T) {
	n := 2000
	if os.Getenv("TEND_TORTURE") == "1" {
		n = 4000
	}
	s, _ := serveTest(t, nil)
	debug.FreeOSMemory() // a baseline without what earlier tests left
	base, baseRSS := heldKiB(), rssAnon(t)
	held := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range held {
			_ = c.Close() // test cleanup, after a failure
		}
	}()
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", s.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i, n, err)
		}
		held = append(held, c)
		if _, err := c.Write([]byte("GET /livez HTTP/1.1\r\nX: ")); err != nil { // a head that never ends
			t.Fatal(err)
		}
	}
	// A fresh request is accepted after every connection queued before
	// it (the accept queue is FIFO), so its answer says that all n went
	// through admit; at most the cap of them are still open.
	livezUnderLoad(t, s.Addr().String(), 1, 10*time.Second)
	peak, peakRSS := heldKiB(), rssAnon(t)
	for _, c := range held {
		_ = c.Close() // the flood is over
	}
	held = nil // this process is also the client: let its side go too
	start := time.Now()
	// Not all of it: the runtime keeps what it made per goroutine and
	// per socket (a g, a poll descriptor) for reuse, and here the client
	// lives in the same process. Half is far more than a tend that keeps
	// it all gives back.
	want := base + (peak-base)/2
	got := peak
	for deadline := start.Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = heldKiB(); got <= want && openConns(s) == 0 {
			break
		}
	}
	t.Logf("heap and stacks held %d KiB before, %d KiB with %d slowloris connections (cap %d), %d KiB %s after they closed (RssAnon %d, %d, %d KiB)",
		base, peak, n, s.maxConns, got, time.Since(start).Round(time.Millisecond), baseRSS, peakRSS, rssAnon(t))
	if got > want {
		t.Errorf("the heap and stacks kept %d KiB after the flood (before %d, during %d)", got, base, peak)
	}
}

// openConns is how many connections s counts as open.
func openConns(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// TestFloodMemoryBounded: a slowloris flood far past the cap costs tend
// about what the cap's connections cost, however many arrive: the OOM
// killer ranks PID 1 by its resident pages. Before, with a cap of 4,096
// and no yield after an eviction, 2,000 connections held a goroutine stack
// and buffers each: the heap and stacks grew by some 15 MB.
func TestFloodMemoryBounded(t *testing.T) {
	const n, bound = 2000, 6 << 10 // KiB; the cap's 128 connections take about 1 MiB
	s, _ := serveTest(t, nil)
	debug.FreeOSMemory() // a baseline without what earlier tests left
	base, goroutines := heldKiB(), runtime.NumGoroutine()
	held := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range held {
			_ = c.Close() // test cleanup
		}
	}()
	most := 0
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", s.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i, n, err)
		}
		held = append(held, c)
		if _, err := c.Write([]byte("GET /livez HTTP/1.1\r\nX: ")); err != nil { // a head that never ends
			t.Fatal(err)
		}
		if i%100 == 0 {
			most = max(most, runtime.NumGoroutine()-goroutines)
		}
	}
	livezUnderLoad(t, s.Addr().String(), 1, 10*time.Second) // all n went through admit (see above)
	most = max(most, runtime.NumGoroutine()-goroutines)
	grew := heldKiB() - base
	t.Logf("%d slowloris connections, cap %d: heap and stacks grew %d KiB, at most %d more goroutines seen", n, s.maxConns, grew, most)
	if grew > bound {
		t.Errorf("the heap and stacks grew %d KiB under %d slowloris connections, want at most %d", grew, n, bound)
	}
}
