package notify

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReceiverFlood: 100,000 datagrams from one process, with nobody
// taking from C. The reader must read them all (the channel never holds
// it), count every one as delivered or dropped, and keep its memory flat;
// afterwards the socket still serves a well-behaved sender.
func TestReceiverFlood(t *testing.T) {
	const n = 100_000
	r := listen(t, Options{Allow: allowAll})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	out := send(t, r, 0, "-n", "100000", "READY=1\nSTATUS=flood")
	if !strings.Contains(out, "\nsent=100000 ") {
		t.Fatalf("sender: %q", out)
	}
	waitCount(t, r, n, 60*time.Second) // a hang bound
	elapsed := time.Since(start)
	var peak runtime.MemStats
	runtime.ReadMemStats(&peak) // before a GC: what the garbage of the flood reached
	runtime.GC()
	runtime.ReadMemStats(&after) // after: what the receiver kept
	var sum uint64
	for d := Accepted; d < nDrops; d++ {
		sum += r.Count(d)
	}
	if sum != n || r.Count(Accepted) != DefaultQueue || r.Count(QueueFull) == 0 || r.Count(RateLimited) == 0 {
		t.Fatalf("counts %s (sum %d, want %d; delivered = the queue's %d)", counts(r), sum, n, DefaultQueue)
	}
	growth := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("flood of %d datagrams read in %v (%.1f µs each); heap in use after GC %+d KiB (%d -> %d KiB), %d KiB before it; allocated %.0f B per datagram; %s",
		n, elapsed, float64(elapsed.Microseconds())/n, growth/1024, before.HeapInuse/1024, after.HeapInuse/1024,
		peak.HeapInuse/1024, float64(after.TotalAlloc-before.TotalAlloc)/n, counts(r))
	if growth > 8<<20 {
		t.Fatalf("heap kept %d KiB after the flood", growth/1024) // a generous bound: the queue holds 64 small messages
	}
	for i := 0; i < DefaultQueue; i++ {
		next(t, r)
	}
	// The bucket refills at DefaultRate a second: resend until one passes.
	deadline := time.Now().Add(10 * time.Second)
	for {
		send(t, r, 0, "STATUS=after the flood")
		select {
		case m := <-r.C:
			if m.Status != "after the flood" {
				t.Fatalf("got %+v", m)
			}
			return
		case <-time.After(50 * time.Millisecond): // one token's refill time, then resend
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing passes after the flood: %s", counts(r))
		}
	}
}
