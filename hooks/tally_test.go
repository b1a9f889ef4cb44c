package hooks

import (
	"errors"
	"testing"
	"time"

	"github.com/tend-init/tend/health"
)

// TestTally: each run counts under its hook and result, its duration lands
// in its hook's histogram, and a snapshot does not move with later runs.
func TestTally(t *testing.T) {
	var tl Tally
	if runs, durs := tl.Snapshot(); runs == nil || durs == nil || len(runs) != 0 || len(durs) != 0 {
		t.Fatalf("an empty tally's snapshot: %v %v", runs, durs)
	}
	tl.Record("post-start", nil, 20*time.Millisecond)
	tl.Record("post-start", errors.New("exit 1"), 3*time.Second)
	tl.Record("pre-stop", nil, time.Millisecond)
	runs, durs := tl.Snapshot()
	for _, c := range []struct {
		key  health.HookKey
		want uint64
	}{
		{health.HookKey{Hook: "post-start", Result: "success"}, 1},
		{health.HookKey{Hook: "post-start", Result: "failure"}, 1},
		{health.HookKey{Hook: "pre-stop", Result: "success"}, 1},
		{health.HookKey{Hook: "pre-stop", Result: "failure"}, 0},
	} {
		if runs[c.key] != c.want {
			t.Errorf("runs[%v] = %d, want %d", c.key, runs[c.key], c.want)
		}
	}
	if h := durs["post-start"]; h.Count != 2 || h.Sum < 3.019 || h.Sum > 3.021 || h.Counts[2] != 1 || h.Counts[9] != 1 {
		t.Errorf("post-start histogram %+v: want 2 runs, 3.02 s, one in the 0.025 and one in the 5 bucket", h)
	}
	tl.Record("pre-stop", nil, time.Millisecond)
	if runs[health.HookKey{Hook: "pre-stop", Result: "success"}] != 1 || durs["pre-stop"].Count != 1 {
		t.Errorf("a snapshot moved with a later run: %v %v", runs, durs["pre-stop"])
	}
}
