package lifecycle

import (
	"testing"

	"github.com/tend-init/tend/plan"
)

// TestManagerStateWaiting: before the app's READY=1, tend is not ready to
// its manager, and its STATUS= names the notify condition (Link.Tell makes
// the text safe for a relay: notify.TestManagerStatusSafe).
func TestManagerStateWaiting(t *testing.T) {
	m, _ := newTestMachine(func(c *plan.Config) { c.Args = []string{"app"}; c.Notify = true })
	m.begin(0)
	ready, stopping, status := m.managerState()
	if ready || stopping {
		t.Fatalf("ready %v stopping %v before the app's READY=1 (STATUS=%q)", ready, stopping, status)
	}
	if status != "waiting: the app has not sent READY=1" {
		t.Errorf("STATUS=%q, want the notify condition", status)
	}
}
