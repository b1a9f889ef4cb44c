package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// httpGet makes one HTTP/1.1 GET and returns the status code. It is the
// smallest client that Kubernetes-style probes and --check need: plain
// http, no redirects followed (a 3xx already counts as success), no body,
// and at most maxResponseHead bytes read whatever the server sends.
func httpGet(ctx context.Context, rawURL string) (int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, err
	}
	if u.Scheme != "http" {
		return 0, fmt.Errorf("unsupported scheme %q (only http)", u.Scheme)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return 0, err
	}
	defer func() { _ = c.Close() }() // the code is already read, or the error says why not
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl) // fails only on a closed conn, which the write reports
	}
	path := u.RequestURI()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: tend-probe\r\nAccept: */*\r\nConnection: close\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		return 0, err
	}
	// Bounded: a broken or hostile server can make this fail, never make
	// tend (PID 1, whose death takes the namespace down) grow.
	return readResponseHead(c, maxResponseHead)
}

// Check is the --check client: one GET of url, nil on a 200-399 status,
// otherwise an error with a one-line reason.
func Check(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return checkStatus(httpGet(ctx, url))
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
		return oneLine(err)
	case code < 200 || code > 399:
		return fmt.Errorf("status %d", code)
	}
	return nil
}

func oneLine(err error) error {
	return errors.New(strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(err.Error()))
}
