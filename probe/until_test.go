package probe

import (
	"testing"
	"time"
)

// TestWaitBackoff: short first retries, capped.
func TestWaitBackoff(t *testing.T) {
	want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
	for i, w := range want {
		if got := Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	if got := Backoff(1000); got != BackoffCap {
		t.Errorf("Backoff(1000) = %s", got)
	}
}
