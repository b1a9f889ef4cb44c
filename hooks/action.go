package hooks

import (
	"fmt"
	"strings"
	"time"
)

// Action is one step of a hook: a Command (exec), a Sleep or an HTTPGet,
// the three actions of Kubernetes' LifecycleHandler.
type Action interface {
	String() string
}

// Sleep waits on a timer, with no process, so that it works in an image
// with no sleep binary (Kubernetes' sleep action, KEP-3960).
type Sleep struct{ D time.Duration }

// HTTPGet makes one GET. As in the kubelet's HTTP lifecycle handler, any
// HTTP response is success; only a connection or transport error fails.
type HTTPGet struct {
	URL     string // http:// or https://
	Headers []Header
}

// Header is one request header.
type Header struct{ Name, Value string }

func (s Sleep) String() string   { return "sleep:" + s.D.String() }
func (h HTTPGet) String() string { return h.URL }

// ParseAction reads a hook value. The forms are told apart by how the value
// begins, after leading blanks:
//   - "[": a JSON exec array, run with no shell;
//   - "{": a JSON LifecycleHandler ({"exec":…}, {"httpGet":…} or {"sleep":…});
//   - "sleep:": a sleep of a Go duration (sleep:5s, sleep:0);
//   - "http://" or "https://": a GET of that URL;
//   - anything else: a shell command, run as /bin/sh -c VALUE.
func ParseAction(s string) (Action, error) {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "{"):
		return parseHandler(t)
	case strings.HasPrefix(t, "sleep:"):
		d, err := time.ParseDuration(strings.TrimPrefix(t, "sleep:"))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("hook %q: want sleep:DURATION, e.g. sleep:5s", s)
		}
		return Sleep{D: d}, nil
	case strings.HasPrefix(t, "http://"), strings.HasPrefix(t, "https://"):
		return parseURL(t)
	}
	return Parse(s)
}
