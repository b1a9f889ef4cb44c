// Package notifypeer is a test-owned NOTIFY_SOCKET, the manager's end of
// sd_notify as podman's conmon or systemd holds it: the black-box and the
// PID-1 tests of tend's notify support share it. Only tests import it.
package notifypeer

import (
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Datagram is one message the manager received, with its arrival time.
type Datagram struct {
	At  time.Time
	Msg string
}

// Listen binds a manager socket in a test directory and returns its path
// and every datagram, in order; the channel closes when the test ends.
func Listen(t testing.TB) (path string, ch <-chan Datagram) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "mgr")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() }) // ends the reader
	out := make(chan Datagram, 1024)
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				close(out)
				return
			}
			out <- Datagram{time.Now(), string(buf[:n])}
		}
	}()
	return path, out
}

// Await reads datagrams until one holds line (a whole line), failing the
// test after d; it returns that datagram and the text of each read before.
func Await(t testing.TB, ch <-chan Datagram, line string, d time.Duration) (Datagram, []string) {
	t.Helper()
	var seen []string
	deadline := time.After(d)
	for {
		select {
		case g, ok := <-ch:
			if !ok {
				t.Fatalf("manager socket closed waiting for %q; saw %q", line, seen)
			}
			if slices.Contains(strings.Split(g.Msg, "\n"), line) {
				return g, seen
			}
			seen = append(seen, g.Msg)
		case <-deadline:
			t.Fatalf("no %q within %s; saw %q", line, d, seen)
		}
	}
}
