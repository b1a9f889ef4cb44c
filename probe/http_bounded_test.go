package probe

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamCap is where the endless server of TestCheckBoundedRead stops, so
// that an unbounded client costs the test 64 MiB and not the machine's
// memory; the client then waits for more until its timeout.
const streamCap = 64 << 20

// TestCheckBoundedRead: a server that answers "HTTP/1.1 200 " and then
// streams bytes with no newline makes Check fail at once with a bounded
// read, not buffer until its timeout.
func TestCheckBoundedRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // test cleanup
	var written atomic.Int64
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()                    // test cleanup
		_ = c.SetDeadline(time.Now().Add(10 * time.Second)) // bounds the fake server too
		// Read the request line only; the rest sits unread, which is fine.
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			return
		}
		chunk := []byte(strings.Repeat("a", 32<<10))
		n, err := io.WriteString(c, "HTTP/1.1 200 ")
		written.Add(int64(n))
		if err != nil {
			return
		}
		for written.Load() < streamCap {
			n, err := c.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return // the client hung up: what it read is what it cost
			}
		}
		buf := make([]byte, 1)
		_, _ = c.Read(buf) // hold the connection open until the client closes it
	}()

	const timeout = 3 * time.Second
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err = getURL("http://"+ln.Addr().String()+"/livez", timeout)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	<-served
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("Check: %v after %s; %d KiB allocated; the server wrote %d KiB before the client hung up",
		err, elapsed, alloc>>10, written.Load()>>10)
	if err == nil || err.Error() != "status line over 4096 bytes" {
		t.Errorf("err = %v, want status line over 4096 bytes", err)
	}
	if elapsed > timeout/2 {
		t.Errorf("took %s of its %s timeout", elapsed, timeout)
	}
	if alloc > 1<<20 {
		t.Errorf("allocated %d bytes reading a response", alloc)
	}
	// Kernel socket buffers hold a few MiB: writes stop far below the cap
	// only if the client stopped reading and hung up.
	if w := written.Load(); w >= streamCap {
		t.Errorf("the client read all %d bytes the server sent", w)
	}
}
