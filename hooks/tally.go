package hooks

import (
	"maps"
	"time"

	"github.com/tend-init/tend/health"
)

// Tally counts finished hooks for /metrics (tend_hook_runs_total and the
// duration histograms). The event loop keeps it; its zero value is ready.
type Tally struct {
	runs      map[health.HookKey]uint64
	durations map[string]health.Histogram
}

// Record counts one run of hook that took d; err is nil for a success.
func (t *Tally) Record(hook string, err error, d time.Duration) {
	if t.runs == nil {
		t.runs, t.durations = map[health.HookKey]uint64{}, map[string]health.Histogram{}
	}
	t.runs[health.HookKey{Hook: hook, Result: health.Result(err)}]++
	h := t.durations[hook]
	h.Observe(d.Seconds())
	t.durations[hook] = h
}

// Snapshot copies the counts for a health.Status, never nil: the loop keeps
// counting into its own maps (a Histogram is a value, copied whole).
func (t *Tally) Snapshot() (map[health.HookKey]uint64, map[string]health.Histogram) {
	runs, durations := maps.Clone(t.runs), maps.Clone(t.durations)
	if runs == nil {
		runs, durations = map[health.HookKey]uint64{}, map[string]health.Histogram{}
	}
	return runs, durations
}
