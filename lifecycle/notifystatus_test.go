package lifecycle

import (
	"strings"
	"testing"

	"github.com/tend-init/tend/plan"
)

// TestManagerStatusSafe: the STATUS= text tend sends its manager never
// holds "READY=1" or "WATCHDOG=1", which conmon 2.1.6 (podman 4.3's
// --sdnotify=container relay) passes on as READY=1 or WATCHDOG=1 wherever
// they appear in a datagram: a container waiting for the app's READY=1
// would be reported ready at once.
func TestManagerStatusSafe(t *testing.T) {
	m, _ := newTestMachine(func(c *plan.Config) { c.Args = []string{"app"}; c.Notify = true })
	m.begin(0)
	ready, _, status := m.managerState()
	if ready {
		t.Fatalf("ready before the app's READY=1 (STATUS=%q)", status)
	}
	if status != "waiting: the app has not sent READY" {
		t.Errorf("STATUS=%q, want the notify condition named without READY=1", status)
	}
	for _, c := range []struct{ in, want string }{
		{"waiting: the app has not sent READY=1", "waiting: the app has not sent READY"},
		{"waiting for x=READY=1, y=WATCHDOG=1", "waiting for x=READY, y=WATCHDOG"},
		{"waiting for db=tcp://db:5432", "waiting for db=tcp://db:5432"},
	} {
		got := statusSafe.Replace(c.in)
		if got != c.want || strings.Contains(got, "READY=1") || strings.Contains(got, "WATCHDOG=1") {
			t.Errorf("statusSafe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
