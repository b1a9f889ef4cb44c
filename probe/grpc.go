package probe

import (
	"context"
	"errors"
	"strings"
	"time"
)

// GRPC passes when the server answers SERVING to one
// grpc.health.v1.Health/Check call for Service, as Kubernetes' grpc probe
// (pkg/probe/grpc in kubernetes/kubernetes): plaintext HTTP/2, no TLS;
// NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, a non-OK gRPC status, a refused
// connection or the timeout fail it. Service "" asks about the server as
// a whole, as the kubelet's default.
type GRPC struct {
	Addr    string // HOST:PORT
	Service string
}

// healthCheck is the wire client (grpcwire.go); a variable so that the
// reason mapping is tested without a server.
var healthCheck = wireHealthCheck

// parseGRPC reads "grpc://HOST:PORT[/SERVICE]". SERVICE is the rest of the
// path, taken verbatim (no percent-decoding), so a '/' in a service name is
// written as is: grpc://h:1/a/b asks about "a/b". The kubelet accepts any
// string as a service (GRPCAction.Service has no validation); only '?' and
// '#' cannot be written here, since a URL would read them as a query or a
// fragment: such a name needs the JSON form.
func parseGRPC(s string) (GRPC, error) {
	rest := strings.TrimPrefix(s, "grpc://")
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return GRPC{}, errors.New("want grpc://HOST:PORT[/SERVICE], with no query or fragment (a service name with '?' or '#' needs the JSON form)")
	}
	addr, service, _ := strings.Cut(rest, "/")
	if err := checkTCPAddr(addr); err != nil {
		if strings.HasPrefix(err.Error(), "want ") {
			err = errors.New("want grpc://HOST:PORT[/SERVICE]")
		}
		return GRPC{}, err
	}
	return GRPC{Addr: addr, Service: service}, nil
}

// String is the spec as written, so that a reason names the probe the
// user configured.
func (g GRPC) String() string {
	if g.Service == "" {
		return "grpc://" + g.Addr
	}
	return "grpc://" + g.Addr + "/" + g.Service
}

// Attempt makes one Health/Check call, bounded by timeout (also sent to the
// server as grpc-timeout by the wire client).
func (g GRPC) Attempt(ctx context.Context, _ Deps, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := healthCheck(ctx, g.Addr, g.Service); err != nil {
		return verdict(0, err) // "timed out", Unknown or one line, as the others
	}
	return nil
}
