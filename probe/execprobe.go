package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/excerpt"
)

// attempt runs the command once, as the kubelet's exec prober does
// (pkg/probe/exec): exit 0 passes, any other code or the timeout fails, and
// the failure says what the command wrote. Its output goes to a pipe that
// tend drains and keeps at most hooks.MaxOutput of, never to tend's own
// stdout, so a stuck log reader cannot make a healthy probe time out.
func (c Command) attempt(ctx context.Context, x Deps, timeout time.Duration) error {
	out, err := hooks.Probe(ctx, x.Starter, c.Cmd, x.Env, timeout)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, hooks.ErrTimeout):
		err = errors.New("timed out")
	default:
		err = fmt.Errorf("%s: %w", c.Cmd, err)
		if u := classify(err); errors.Is(u, ErrUnknown) {
			return u // tend could not start it: nothing was written
		}
	}
	if q := outputExcerpt(out); q != "" {
		// The kubelet's event quotes the output: "Liveness probe
		// failed: OUTPUT" (pkg/kubelet/prober/prober.go).
		err = fmt.Errorf("%w; output %s", err, q)
	}
	return err
}

// outputExcerpt quotes the start of what a probe wrote, on one line,
// through excerpt.Quote: every control byte (NUL, ESC, CR, LF…), invalid
// UTF-8 and the Unicode line and paragraph separators escaped, so the
// output can neither break a log line nor colour a terminal, and at most
// excerpt.Max bytes of it. A cut excerpt says how many bytes there were.
// "" when the probe wrote nothing but blanks.
func outputExcerpt(o hooks.Output) string {
	all := bytes.TrimSpace(o.Head)
	if len(all) == 0 {
		return ""
	}
	q := excerpt.Quote(string(all))
	// Blanks around the output are not worth a mention; anything else
	// left out is.
	switch {
	case strings.HasSuffix(q, "…"):
		return fmt.Sprintf("%s (%d bytes)", q, o.Total)
	case int64(len(o.Head)) < o.Total:
		return fmt.Sprintf("%s… (%d bytes)", q, o.Total)
	}
	return q
}
