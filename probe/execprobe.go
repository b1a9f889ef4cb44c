package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tend-init/tend/hooks"
)

// check runs the command once, as the kubelet's exec prober does
// (pkg/probe/exec): exit 0 passes, any other code or the timeout fails, and
// the failure says what the command wrote. Its output goes to a pipe that
// tend drains and keeps at most hooks.MaxOutput of, never to tend's own
// stdout, so a stuck log reader cannot make a healthy probe time out.
func (c Command) check(ctx context.Context, x Exec, timeout time.Duration) error {
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
	if q := excerpt(out); q != "" {
		// The kubelet's event quotes the output: "Liveness probe
		// failed: OUTPUT" (pkg/kubelet/prober/prober.go).
		err = fmt.Errorf("%w; output %s", err, q)
	}
	return err
}

// excerptLen is how much of a failing probe's output its message quotes:
// enough for an error line, short enough for a log line, a termination
// message and /readyz?verbose.
const excerptLen = 120

// excerpt quotes the start of what a probe wrote, on one line: strconv.Quote
// escapes every control byte (NUL, ESC, CR, LF…), invalid UTF-8 and the
// Unicode line and paragraph separators, so the output can neither break a
// log line nor colour a terminal. A cut excerpt ends on a character
// boundary and says how many bytes there were. "" when the probe wrote
// nothing but blanks.
func excerpt(o hooks.Output) string {
	all := bytes.TrimSpace(o.Head)
	if len(all) == 0 {
		return ""
	}
	head := all
	if len(head) > excerptLen {
		n := excerptLen
		for n > 0 && !utf8.RuneStart(head[n]) {
			n--
		}
		head = head[:n]
	}
	q := strconv.Quote(string(head))
	// Blanks around the output are not worth a mention; anything else
	// left out is.
	if len(head) == len(all) && int64(len(o.Head)) == o.Total {
		return q
	}
	return fmt.Sprintf("%s… (%d bytes)", q, o.Total)
}
