package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
)

type kind int

const (
	kindHTTP kind = iota
	kindTCP
	kindExec
)

// Spec is one probe: an http URL, a tcp address, or a hook command.
type Spec struct {
	kind kind
	url  string
	addr string
	cmd  hooks.Command
}

// ParseSpec reads a probe: "http://HOST:PORT/PATH" succeeds on a 200-399
// status, as Kubernetes' httpGet; "tcp://HOST:PORT" succeeds when it
// connects; anything else is a hook command (shell or JSON exec form) that
// succeeds when it exits 0.
func ParseSpec(s string) (Spec, error) {
	switch {
	case strings.HasPrefix(s, "http://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || u.Port() == "" && strings.HasSuffix(u.Host, ":") {
			return Spec{}, fmt.Errorf("probe %q: want http://HOST:PORT/PATH", s)
		}
		return Spec{kind: kindHTTP, url: s}, nil
	case strings.HasPrefix(s, "https://"):
		return Spec{}, fmt.Errorf("probe %q: https is not supported", s)
	case strings.HasPrefix(s, "tcp://"):
		addr := strings.TrimPrefix(s, "tcp://")
		if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
			return Spec{}, fmt.Errorf("probe %q: want tcp://HOST:PORT", s)
		}
		return Spec{kind: kindTCP, addr: addr}, nil
	case isURL(s):
		// grpc://, ftp://... would otherwise run as a shell command.
		return Spec{}, fmt.Errorf("probe %q: unsupported scheme (want http:// or tcp://)", s)
	}
	c, err := hooks.Parse(s)
	if err != nil {
		return Spec{}, fmt.Errorf("probe: %v", err)
	}
	return Spec{kind: kindExec, cmd: c}, nil
}

// String renders the probe for logs.
func (s Spec) String() string {
	switch s.kind {
	case kindHTTP:
		return s.url
	case kindTCP:
		return "tcp://" + s.addr
	}
	return s.cmd.String()
}

// Probe runs one attempt, bounded by timeout. Exec probes are started and
// collected through st (the reaper), with env, and killed with their whole
// group on timeout.
func (s Spec) Probe(ctx context.Context, st hooks.Starter, env []string, timeout time.Duration) error {
	switch s.kind {
	case kindHTTP:
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return checkStatus(httpGet(ctx, s.url))
	case kindTCP:
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", s.addr)
		if err != nil {
			return checkStatus(0, err)
		}
		_ = c.Close() // connecting was the whole probe
		return nil
	}
	res := hooks.Run(ctx, st, "probe", []hooks.Command{s.cmd}, env, timeout)
	if errors.Is(res.Err, hooks.ErrTimeout) {
		return errors.New("timed out")
	}
	return res.Err
}

// isURL reports whether s starts with a URL scheme followed by "://".
func isURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for _, r := range s[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
