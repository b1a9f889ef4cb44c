package probe

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tend-init/tend/grpc"
	"github.com/tend-init/tend/internal/target"
)

// GRPC passes when the server answers SERVING to one
// grpc.health.v1.Health/Check call for Service, as Kubernetes' grpc probe
// (pkg/probe/grpc in kubernetes/kubernetes): plaintext HTTP/2, or with
// Secure (grpcs://, tend's: the kubelet's has no TLS) HTTP/2 over TLS;
// NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, a non-OK gRPC status, a refused
// connection or the timeout fail it. Service "" asks about the server as
// a whole, as the kubelet's default.
type GRPC struct {
	Addr    string // HOST:PORT, or unix:/PATH
	Service string
	Secure  bool // grpcs://
	// TLS is how a Secure probe meets the server: nil does not verify
	// it, as the kubelet's HTTPS probes; --check sets its CA and client
	// certificate. A pointer keeps GRPC comparable.
	TLS *target.TLS
}

// healthCheck is the wire client (grpcwire.go); a variable so that the
// reason mapping is tested without a server.
var healthCheck = wireHealthCheck

// parseGRPC reads "grpc://HOST:PORT[/SERVICE]", "grpc://unix:/PATH[:/SERVICE]",
// or either with grpcs://. SERVICE is the rest of the path, taken verbatim (no percent-decoding), so a '/' in a service name is
// written as is: grpc://h:1/a/b asks about "a/b". The kubelet accepts any
// string as a service (GRPCAction.Service has no validation); only '?' and
// '#' cannot be written here, since a URL would read them as a query or a
// fragment: such a name needs the JSON form.
func parseGRPC(s string) (GRPC, error) {
	scheme, rest, _ := strings.Cut(s, "://")
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return GRPC{}, errors.New("want grpc://HOST:PORT[/SERVICE], with no query or fragment (a service name with '?' or '#' needs the JSON form)")
	}
	g := GRPC{Secure: scheme == "grpcs"}
	if target.IsUnix(rest) {
		path, svc, err := target.SplitUnix(rest)
		if err != nil {
			return GRPC{}, err
		}
		g.Addr, g.Service = target.UnixPrefix+path, strings.TrimPrefix(svc, "/")
		return g, nil
	}
	addr, service, _ := strings.Cut(rest, "/")
	if err := checkTCPAddr(addr); err != nil {
		if strings.HasPrefix(err.Error(), "want ") {
			err = errors.New("want grpc://HOST:PORT[/SERVICE]")
		}
		return GRPC{}, err
	}
	g.Addr, g.Service = addr, service
	return g, nil
}

// String is the spec as written, so that a reason names the probe the
// user configured.
func (g GRPC) String() string {
	s, sep := "grpc://", "/"
	if g.Secure {
		s = "grpcs://"
	}
	if target.IsUnix(g.Addr) {
		sep = ":/"
	}
	if g.Service == "" {
		return s + g.Addr
	}
	return s + g.Addr + sep + g.Service
}

// Attempt makes one Health/Check call, bounded by timeout (also sent to the
// server as grpc-timeout by the wire client).
func (g GRPC) Attempt(ctx context.Context, _ Deps, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := grpc.Target{Addr: g.Addr}
	if g.Secure {
		t.TLS = &target.TLS{}
		if g.TLS != nil {
			t.TLS = g.TLS
		}
	}
	if err := healthCheck(ctx, t, g.Service); err != nil {
		return verdict(0, err) // "timed out", Unknown or one line, as the others
	}
	return nil
}
