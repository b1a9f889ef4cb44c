package hooks

import (
	"context"
	"time"

	"github.com/tend-init/tend/http1"
)

// Go runs acts as Run does, in a goroutine of its own that only reports:
// done gets the result and how long the run took. deadline, unless zero,
// bounds the whole run (the grace period cutting a pre-stop); the returned
// cancel cuts it with a cause (a stop that overtakes a post-start).
func (r Runner) Go(acts []Action, deadline time.Time, done func(err error, took time.Duration)) context.CancelCauseFunc {
	ctx, cancel := context.WithCancelCause(context.Background())
	run := ctx
	release := context.CancelFunc(func() {})
	if !deadline.IsZero() {
		run, release = context.WithDeadline(ctx, deadline)
	}
	go func() {
		start := time.Now()
		err := r.Run(run, acts)
		release()
		done(err, time.Since(start))
	}()
	return cancel
}

// HTTPClient is a Runner's Get over package http1, sending userAgent:
// answered hears each response's status (the caller logs it); the body is
// read up to a bound and discarded by the client.
func HTTPClient(userAgent string, answered func(h HTTPGet, code int)) func(context.Context, HTTPGet) (int, error) {
	return func(ctx context.Context, h HTTPGet) (int, error) {
		resp, err := http1.Get(ctx, h.Request(userAgent))
		if err != nil {
			return 0, err
		}
		answered(h, resp.Code)
		return resp.Code, nil
	}
}
