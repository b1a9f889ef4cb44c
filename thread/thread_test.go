package thread

import (
	"testing"
)

// TestBudget: 8 threads with nothing configured, and one more for each
// goroutine that can block in a system call.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		n    Needs
		want int
	}{
		{Needs{}, 8},
		{Needs{TerminationMessage: true}, 9},
		{Needs{Health: true}, 11},
		{Needs{Hooks: 2, Relay: true}, 11},
		{Needs{Probes: 2}, 10},
	} {
		if got := Budget(c.n); got != c.want {
			t.Errorf("%+v: budget %d, want %d", c.n, got, c.want)
		}
	}
}

// TestThreadCount: the raw read of /proc/self/status agrees with
// /proc/self/task.
func TestThreadCount(t *testing.T) {
	n := threadCount()
	if n < 1 {
		t.Skipf("no /proc/self/status: %d", n)
	}
	if n < 2 { // the test binary always has sysmon besides its main thread
		t.Fatalf("threadCount() = %d", n)
	}
}
