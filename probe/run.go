package probe

import (
	"context"
	"time"

	"github.com/tend-init/tend/hooks"
)

// Params are Kubernetes' probe settings.
type Params struct {
	Period, Timeout, InitialDelay      time.Duration
	FailureThreshold, SuccessThreshold int
}

// DefaultParams are Kubernetes' defaults: every 10s, 1s timeout, no initial
// delay, 3 failures to fail, 1 success to succeed.
func DefaultParams() Params {
	return Params{Period: 10 * time.Second, Timeout: time.Second, FailureThreshold: 3, SuccessThreshold: 1}
}

// Result is one probe attempt, sent to the event loop.
type Result struct {
	Probe string // "ready" or "live"
	OK    bool
	Err   error
}

// Run waits InitialDelay, then probes every Period until ctx is done, and
// sends each attempt's result to out. It never blocks once ctx is done.
func Run(ctx context.Context, name string, s Spec, p Params, st hooks.Starter, env []string, out chan<- Result) {
	wait := p.InitialDelay
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		err := s.Probe(ctx, st, env, p.Timeout)
		if ctx.Err() != nil {
			return // the attempt was cut short by the stop, not by the app
		}
		select {
		case out <- Result{Probe: name, OK: err == nil, Err: err}:
		case <-ctx.Done():
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
