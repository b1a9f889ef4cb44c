package http1

import (
	"context"
	"crypto/tls"
	"net"
)

// handshake runs TLS over c, as the kubelet's prober does: the server's
// certificate is not verified (InsecureSkipVerify) unless r.Verify, and
// then against r.CA, or the system roots when nil. ServerName is the URL's
// host name, which crypto/tls sends as SNI unless it is an IP address and
// verifies the certificate against either way. No ALPN is offered, so the
// server answers in HTTP/1.1. The handshake is bounded by c's deadline
// and by ctx.
func handshake(ctx context.Context, c net.Conn, host string, r Request) (net.Conn, error) {
	tc := tls.Client(c, &tls.Config{
		ServerName:         host,
		InsecureSkipVerify: !r.Verify, // the kubelet's default: probes check liveness, not identity
		RootCAs:            r.CA,
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = c.Close() // the handshake failed: its error is the one to report
		return nil, err
	}
	return tc, nil
}
