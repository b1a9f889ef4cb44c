package health

import "time"

// HookKey labels tend_hook_runs_total.
type HookKey struct{ Hook, Result string }

// ProbeKey labels tend_probe_results_total: the check's name and kind, and
// success, failure or unknown.
type ProbeKey struct{ Probe, Kind, Result string }

// Result is the Result label of a run or an attempt that ended with err.
func Result(err error) string {
	if err != nil {
		return "failure"
	}
	return "success"
}

// Status is an immutable snapshot that the event loop publishes after every
// event. Handlers only ever read the latest one; they never call the loop.
type Status struct {
	Live, Ready             bool
	LiveReason, ReadyReason string // e.g. "not ready: post-start running"
	AppUp                   bool
	AppExitCode             int // -1 until known
	Terminating             bool
	ZombiesReaped           uint64
	OOMKills                uint64 // the memory cgroup's oom_kill count
	OOMKillsKnown           bool   // whether tend found that count
	Reloads                 uint64 // reloads begun after a --reload-on change
	ReloadOn                bool   // whether tend watches files (--reload-on)
	SignalsForwarded        map[string]uint64
	HookRuns                map[HookKey]uint64
	HookDurations           map[string]Histogram
	ProbeResults            map[ProbeKey]uint64
	Checks                  []CheckStatus
	// Published is when the loop last published: a stale snapshot means
	// the loop is stuck, and /livez says so.
	Published time.Time
}

// CheckStatus is one named check, for /readyz?verbose, /livez?verbose and
// tend_probe_up.
type CheckStatus struct {
	Name   string
	Kind   string // startup, ready or live
	Up     bool
	Detail string // why not, when not up
}

// NumBuckets is the number of finite histogram buckets.
const NumBuckets = 13

// BucketBounds returns the upper bounds of hook duration histograms, in
// seconds, from a quick shell command to a slow drain script. It is a
// function, not a package variable, so nothing can change it.
func BucketBounds() [NumBuckets]float64 {
	return [NumBuckets]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
}

// Histogram is a fixed-bucket histogram kept by value, so a snapshot can
// copy it without sharing memory with the loop.
type Histogram struct {
	Counts [NumBuckets]uint64 // non-cumulative counts per bucket
	Count  uint64
	Sum    float64
}

// Observe adds one observation, in seconds.
func (h *Histogram) Observe(seconds float64) {
	h.Count++
	h.Sum += seconds
	for i, b := range BucketBounds() {
		if seconds <= b {
			h.Counts[i]++
			return
		}
	}
}
