package probe

import (
	"context"
	"time"
)

// UntilUp attempts h until it passes once, ctx ends or report returns
// false, with Backoff between failures: --wait-for's dependencies. An
// attempt cut short because ctx ended is not reported, as in Run.
func UntilUp(ctx context.Context, h Handler, timeout time.Duration, x Deps, report func(error) bool) {
	for n := 1; ; n++ {
		err := h.Attempt(ctx, x, timeout)
		if ctx.Err() != nil || !report(err) || err == nil {
			return
		}
		t := time.NewTimer(Backoff(n))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Backoff between attempts at one dependency: a refused connection fails
// at once, so the first retries come quickly and later ones settle at
// BackoffCap (dockerize retries every 1 s, wait-for-it every 1 s).
const (
	backoffFirst = 50 * time.Millisecond
	BackoffCap   = 500 * time.Millisecond
)

// Backoff is the pause after the nth failed attempt (n from 1).
func Backoff(n int) time.Duration {
	d := backoffFirst
	for i := 1; i < n && d < BackoffCap; i++ {
		d *= 2
	}
	return min(d, BackoffCap)
}
