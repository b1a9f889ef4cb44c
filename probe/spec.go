package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/target"
)

// Handler is one probe's action, as Kubernetes' ProbeHandler: Attempt runs
// one attempt, bounded by timeout, and returns nil when the target passed.
// There is one type per kind (HTTP, TCP, GRPC, Command), so adding a kind
// adds a type, not a case to every switch.
type Handler interface {
	Attempt(ctx context.Context, x Deps, timeout time.Duration) error
	String() string
}

// Deps is what a probe needs from tend: for a command, the reaper that
// starts and collects its process, and its environment; for HTTP, the
// User-Agent to send and where its notes go. TCP and gRPC probes ignore it.
type Deps struct {
	Starter   hooks.Starter
	Env       []string
	UserAgent string // HTTP's default User-Agent: UserAgent(tend's version)
	// Note, when set, receives http1.Response.Note: something the user
	// should see although the attempt passed (a redirect to another host,
	// say), for which the kubelet records a warning event.
	Note func(string)
}

// UserAgent is the User-Agent tend's HTTP probes and hooks send, as the
// kubelet sends "kube-probe/MAJOR.MINOR"; "tend" with no version.
func UserAgent(version string) string {
	if version == "" {
		return "tend"
	}
	return "tend/" + version
}

// HTTP passes on a 200-399 status, as Kubernetes' httpGet: it follows
// redirects to the same host, and does not verify an https server's
// certificate. HTTP{URL: u} is a complete probe; Headers are optional.
type HTTP struct {
	URL     string         // http:// or https://
	Headers []http1.Header // as http1.Request.Headers: Kubernetes' httpHeaders
}

// TCP passes when a connection opens, as Kubernetes' tcpSocket.
type TCP struct{ Addr string } // HOST:PORT or unix:/PATH

// Command passes when the command exits 0, as Kubernetes' exec. It runs
// through the reaper, in its own process group, killed whole on timeout.
type Command struct{ Cmd hooks.Command }

// ParseSpec reads a probe: "http://HOST:PORT/PATH", "https://HOST:PORT/PATH",
// "tcp://HOST:PORT", "grpc://HOST:PORT[/SERVICE]" or "grpcs://…" (parseGRPC),
// or else a hook command (shell string or JSON exec array). Each URL form
// takes a unix socket where HOST:PORT stands, as nginx writes it
// (target.UnixPrefix): http://unix:/PATH:/URI, tcp://unix:/PATH,
// grpc://unix:/PATH[:/SERVICE]. A host must be a host name or an IP address and a port 1..65535
// (target.ParseHTTPURL, target.CheckHost): anything else would fail every
// attempt, or probe another target than written, instead of stopping tend
// at its start.
func ParseSpec(s string) (Handler, error) {
	switch {
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		if _, _, err := target.ParseHTTPURL(s); err != nil {
			return nil, fmt.Errorf("probe %s: %v", excerpt.Quote(s), err)
		}
		return HTTP{URL: s}, nil
	case strings.HasPrefix(s, "tcp://"):
		addr := strings.TrimPrefix(s, "tcp://")
		if err := checkTCPAddr(addr); err != nil {
			return nil, fmt.Errorf("probe %s: %v", excerpt.Quote(s), err)
		}
		return TCP{Addr: addr}, nil
	case strings.HasPrefix(s, "grpc://"), strings.HasPrefix(s, "grpcs://"):
		g, err := parseGRPC(s)
		if err != nil {
			return nil, fmt.Errorf("probe %s: %v", excerpt.Quote(s), err)
		}
		return g, nil
	case isURL(s):
		// ftp://, grpcs://... would otherwise run as a shell command.
		return nil, fmt.Errorf("probe %s: unsupported scheme (want http://, https://, tcp://, grpc:// or grpcs://)", excerpt.Quote(s))
	case strings.HasPrefix(s, "POST ") && isURL(s[len("POST "):]):
		// Else a shell command named POST: a probe only looks, as the kubelet's.
		return nil, fmt.Errorf("probe %s: a probe GETs, as the kubelet's; POST is for hooks", excerpt.Quote(s))
	}
	c, err := hooks.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("probe: %v", err)
	}
	return Command{Cmd: c}, nil
}

// checkTCPAddr accepts HOST:PORT with a host name or IP address (or no
// host: this container) and a numeric port 1..65535 (target.CheckAddr), or
// unix:/PATH (target.CheckDialAddr).
func checkTCPAddr(addr string) error {
	err := target.CheckDialAddr(addr)
	if errors.Is(err, target.ErrNotHostPort) {
		return errors.New("want tcp://HOST:PORT")
	}
	return err
}

func (h HTTP) String() string    { return h.URL }
func (t TCP) String() string     { return "tcp://" + t.Addr }
func (c Command) String() string { return c.Cmd.String() }

// Attempt makes one GET, following redirects as the kubelet does, and hands
// a note to x.Note.
func (h HTTP) Attempt(ctx context.Context, x Deps, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	note, err := getOnce(ctx, http1.Request{URL: h.URL, Headers: h.Headers, FollowRedirects: true, UserAgent: x.UserAgent})
	if note != "" && x.Note != nil {
		x.Note(note)
	}
	return err
}

// Attempt opens and closes one connection.
func (t TCP) Attempt(ctx context.Context, _ Deps, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := target.Dial(ctx, t.Addr)
	if err != nil {
		return verdict(0, err)
	}
	_ = c.Close() // connecting was the whole probe
	return nil
}

// Attempt runs the command once (execprobe.go).
func (c Command) Attempt(ctx context.Context, x Deps, timeout time.Duration) error {
	return c.attempt(ctx, x, timeout)
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
