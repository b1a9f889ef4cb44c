package notify

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tend-init/tend/logger"
)

// TestManagerStatusSafe: the STATUS= text tend sends its manager never
// holds "READY=1" or "WATCHDOG=1", which conmon 2.1.6 (podman 4.3's
// --sdnotify=container relay) passes on as READY=1 or WATCHDOG=1 wherever
// they appear in a datagram: a container waiting for the app's READY=1
// would be reported ready at once. tend's own READY=1 goes as it is.
func TestManagerStatusSafe(t *testing.T) {
	name := fmt.Sprintf("@tend-notify-safe-%d", os.Getpid())
	fd := manager(t, name)
	s, err := FromEnv(lookupOf(EnvSocket, name))
	if err != nil || s == nil {
		t.Fatalf("FromEnv: %v %v", s, err)
	}
	defer s.Close()
	k := &Link{log: logger.New(io.Discard, 0, logger.Text), out: s}
	lines := 0
	for _, c := range []struct {
		ready bool
		in    string
		want  string
	}{
		{false, "waiting: the app has not sent READY=1", "STATUS=waiting: the app has not sent READY"},
		{false, "waiting for x=READY=1, y=WATCHDOG=1", "STATUS=waiting for x=READY, y=WATCHDOG"},
		{false, "waiting for db=tcp://db:5432", "STATUS=waiting for db=tcp://db:5432"},
		{true, "ready", "READY=1\nSTATUS=ready"},
	} {
		k.Tell(c.ready, false, c.in, func() { lines++ })
		got := recvString(t, fd)
		status := got[strings.Index(got, "STATUS="):]
		if got != c.want || strings.Contains(status, "READY=1") || strings.Contains(status, "WATCHDOG=1") {
			t.Errorf("Tell(%q): manager got %q, want %q", c.in, got, c.want)
		}
	}
	if lines != 1 {
		t.Errorf("ready line logged %d times, want once", lines)
	}
}

// TestTold: what tend tells its manager at each standing.
func TestTold(t *testing.T) {
	const why = "not ready: post-start running"
	for _, c := range []struct {
		at              Standing
		ok              bool
		ready, stopping bool
		status          string
	}{
		{Starting, false, false, false, "waiting: post-start running"},
		{Starting, true, false, false, "waiting: post-start running"}, // ready only once running
		{PreStart, false, false, false, "waiting: pre-start running"},
		{Running, true, true, false, "ready"},
		{Running, false, false, false, "waiting: post-start running"},
		{PreStop, true, false, true, "stopping: pre-stop running"},
		{Stopping, false, false, true, "stopping: waiting for the app to exit"},
		{Exited, false, false, true, "stopping: the app exited"},
		{PostStop, false, false, true, "stopping: post-stop running"},
	} {
		ready, stopping, status := Told(c.at, c.ok, why)
		if ready != c.ready || stopping != c.stopping || status != c.status {
			t.Errorf("Told(%d, %v) = %v %v %q, want %v %v %q", c.at, c.ok, ready, stopping, status, c.ready, c.stopping, c.status)
		}
	}
}
