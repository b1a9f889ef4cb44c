package probe

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// peer serves one connection on loopback: it reads the request line, then
// runs answer on the connection until it returns or the client hangs up.
func peer(t *testing.T, answer func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = ln.Close(); <-done }) // the listener's only error here is "closed"
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()                    // test cleanup
		_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // bounds the fake peer too
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			return
		}
		answer(c)
	}()
	return ln.Addr().String()
}

// stream writes s again and again until the client hangs up.
func stream(c net.Conn, first, s string) {
	if _, err := io.WriteString(c, first); err != nil {
		return
	}
	chunk := []byte(strings.Repeat(s, (32<<10)/len(s))) // once: the test counts what the process allocates
	for {
		if _, err := c.Write(chunk); err != nil {
			return // the client hung up
		}
	}
}

// TestEndlessHeadFails: a peer that answers 200 and then header lines that
// never end fails the check, as the kubelet's net/http fails a head over
// 10 MiB (or the timeout). tend once counted everything past 4 KiB of head
// as success. Memory stays bounded however the head goes on.
func TestEndlessHeadFails(t *testing.T) {
	for _, c := range []struct {
		name        string
		first, rest string
	}{
		{"endless header lines", "HTTP/1.1 200 OK\r\n", "X-Filler: yyyyyyyyyyyyyyyy\r\n"},
		{"one endless header line", "HTTP/1.1 200 OK\r\nX-Long: ", "y"},
		{"endless continuation lines", "HTTP/1.1 200 OK\r\nX-A: 1\r\n", " more\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := peer(t, func(conn net.Conn) { stream(conn, c.first, c.rest) })
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := getURL("http://"+addr+"/livez", 10*time.Second)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("Check: %v after %s, %d KiB allocated", err, time.Since(start), alloc>>10)
			if err == nil {
				t.Fatal("a head that never ends passed")
			}
			if alloc > 1<<20 {
				t.Errorf("allocated %d KiB reading a head", alloc>>10)
			}
		})
	}
	// A peer that stops sending in the middle of its head: the timeout.
	addr := peer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n"+strings.Repeat("X: y\r\n", 1000)) // the client's read ends the test either way
		_, _ = c.Read(make([]byte, 1))                                                   // until the client hangs up
	})
	if err := getURL("http://"+addr+"/livez", 300*time.Millisecond); err == nil || err.Error() != "timed out" {
		t.Errorf("a head cut off mid-way: %v, want timed out", err)
	}
}

// TestLargeHeadPasses: a head that does end, over 4 KiB of it, is read
// whole, as the kubelet reads it: a 200 passes, and a Location that comes
// after 8 KiB of headers is followed.
func TestLargeHeadPasses(t *testing.T) {
	big := strings.Repeat("Content-Security-Policy-Report-Only: default-src 'self'\r\n", 150) // about 8 KiB
	long := "X-Long: " + strings.Repeat("z", 6000) + "\r\n"                                   // one line over 4 KiB
	ok := peer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n"+big+long+"Content-Length: 3\r\n\r\nok\n") // the client judges what it got
	})
	if err := getURL("http://"+ok+"/livez", 5*time.Second); err != nil {
		t.Errorf("a 200 with a large head: %v", err)
	}
	var target string
	final := peer(t, func(c net.Conn) { _, _ = io.WriteString(c, "HTTP/1.1 503 Down\r\nContent-Length: 0\r\n\r\n") })
	target = "http://" + final + "/down"
	redir := peer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 302 Found\r\n"+big+"Location: "+target+"\r\nContent-Length: 0\r\n\r\n")
	})
	err := HTTP{URL: "http://" + redir + "/livez"}.Attempt(t.Context(), Deps{}, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a Location after 8 KiB of head: %v, want it followed to the 503", err)
	}
}
