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

// httpGet makes one GET of url with the defaults of Get, no redirect
// followed (a 3xx already counts as success), and returns the status code.
func httpGet(ctx context.Context, url string) (int, error) {
	resp, err := http1.Get(ctx, http1.Request{URL: url})
	return resp.Code, err
}

// Check is the --check client: one GET of url, nil on a 200-399 status,
// otherwise an error with a one-line reason. It follows no redirect and
// does not verify an https server's certificate; CheckWith chooses.
func Check(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return checkStatus(httpGet(ctx, url))
}

// CheckWith is Check for any http1.Request: nil on a 200-399 status,
// otherwise an error with a one-line reason. note is http1.Response.Note,
// for the caller to show: it is set on success too (a redirect to another
// host, say).
func CheckWith(r http1.Request, timeout time.Duration) (note string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return checkGet(ctx, r)
}

// checkGet makes r and judges the answer as the kubelet does.
func checkGet(ctx context.Context, r http1.Request) (note string, err error) {
	resp, err := http1.Get(ctx, r)
	if err = checkStatus(resp.Code, err); err != nil && resp.URL != r.URL && resp.Code != 0 && strings.HasPrefix(err.Error(), "status ") {
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

func checkStatus(code int, err error) error {
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
