package probe

import (
	"context"
	"time"

	"github.com/tend-init/tend/http1"
)

// getURL is one GET of url with http1's defaults, no redirect followed (a
// 3xx counts as success) and no certificate verified, judged as an attempt.
// The status alone, as --check judged it before it printed the body's
// first line.
func getURL(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := http1.Get(ctx, http1.Request{URL: url})
	return verdict(resp.Code, err)
}
