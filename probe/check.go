package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/excerpt"
)

// Get is the --check client: one GET of r within timeout, judged as a
// probe's attempt: nil on a 200-399 status, otherwise an error with a
// one-line reason. r chooses whether to follow redirects and verify an
// https server. note is http1.Response.Note, for the caller to show: it is
// set on success too (a redirect to another host, say).
func Get(r http1.Request, timeout time.Duration) (note string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return getOnce(ctx, r)
}

// getOnce makes r and judges the answer as the kubelet does.
func getOnce(ctx context.Context, r http1.Request) (note string, err error) {
	resp, err := http1.Get(ctx, r)
	if err = verdict(resp.Code, err); err != nil && resp.URL != r.URL && resp.Code != 0 && strings.HasPrefix(err.Error(), "status ") {
		// A status from where redirects led needs the URL to make sense.
		err = fmt.Errorf("%v from %s", err, resp.URL)
	}
	if err != nil && resp.First != "" && resp.Code != 0 {
		// The server's own reason, e.g. tend's "not ready: post-start
		// running", says more than the status alone.
		err = fmt.Errorf("%v: %s", err, excerpt.Escape(resp.First))
	}
	return resp.Note, err
}

func verdict(code int, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return errors.New("timed out")
	case err != nil:
		if c := classify(err); errors.Is(c, ErrUnknown) {
			return c
		}
		return errors.New(excerpt.Escape(err.Error()))
	case code < 200 || code > 399:
		return fmt.Errorf("status %d", code)
	}
	return nil
}
