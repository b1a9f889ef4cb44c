package probe

import (
	"context"
	"time"
)

// Params are Kubernetes' probe settings. Their defaults live with the rest
// of tend's, in plan.Default.
type Params struct {
	Period, Timeout, InitialDelay      time.Duration
	FailureThreshold, SuccessThreshold int
}

// Run waits InitialDelay, then probes every Period until ctx is done or
// report returns false, and hands each attempt's result to report (nil when
// it passed). An attempt cut short because ctx ended is not reported: the
// stop, not the target, ended it. x.Note gets a note when it differs from
// the last one: the kubelet records a warning event at every attempt, and
// its event recorder folds the repeats into a count.
func Run(ctx context.Context, c Handler, p Params, x Deps, report func(error) bool) {
	if note := x.Note; note != nil {
		last := ""
		x.Note = func(n string) {
			if n != last {
				last = n
				note(n)
			}
		}
	}
	wait := p.InitialDelay
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		err := c.Attempt(ctx, x, p.Timeout)
		if ctx.Err() != nil {
			return
		}
		if !report(err) {
			return
		}
		wait = p.Period
	}
}

// Threshold turns attempts into a state with Kubernetes' thresholds: it
// flips to failing after FailureThreshold failures in a row, and back after
// SuccessThreshold successes in a row. It is a plain value the loop owns.
type Threshold struct {
	p               Params
	state           bool
	fails, succeeds int
}

// NewThreshold starts in the given state.
func NewThreshold(p Params, initial bool) Threshold { return Threshold{p: p, state: initial} }

// Observe records one attempt and returns the state, and whether it changed.
func (t *Threshold) Observe(ok bool) (state, changed bool) {
	if ok {
		t.fails = 0
		t.succeeds++
		if !t.state && t.succeeds >= t.p.SuccessThreshold {
			t.state = true
			return true, true
		}
		return t.state, false
	}
	t.succeeds = 0
	t.fails++
	if t.state && t.fails >= t.p.FailureThreshold {
		t.state = false
		return false, true
	}
	return t.state, false
}

// State is the current state.
func (t *Threshold) State() bool { return t.state }
