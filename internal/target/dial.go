package target

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
)

// Dial connects to addr, a HOST:PORT or "unix:/PATH" (CheckDialAddr),
// within ctx, and sets ctx's deadline on the connection.
func Dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	n, a := network(addr)
	c, err := d.DialContext(ctx, n, a)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl) // fails only on a closed conn, which the first write reports
	}
	return c, nil
}

// TLS is how tend meets a TLS server: the same for https and grpcs.
type TLS struct {
	// Verify checks the server's certificate: off by default, as the
	// kubelet's HTTPS probes (probes check liveness, not identity);
	// --check-ca turns it on.
	Verify bool
	CA     *x509.CertPool   // with Verify: the roots to trust; nil = the system's
	Cert   *tls.Certificate // a client certificate, for a server that wants mTLS
	ALPN   []string         // protocols offered: none for HTTP/1.1, "h2" for gRPC
}

// Handshake runs TLS over c, bounded by c's deadline and by ctx, and closes
// c when it fails. ServerName is the target's host name, which crypto/tls
// sends as SNI unless it is an IP address, and verifies the certificate
// against either way.
func Handshake(ctx context.Context, c net.Conn, serverName string, t TLS) (*tls.Conn, error) {
	cfg := &tls.Config{
		ServerName:         serverName,
		InsecureSkipVerify: !t.Verify, // the kubelet's default: see Verify
		RootCAs:            t.CA,
		NextProtos:         t.ALPN,
	}
	if t.Cert != nil {
		cfg.Certificates = []tls.Certificate{*t.Cert}
	}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = c.Close() // the handshake failed: its error is the one to report
		return nil, err
	}
	return tc, nil
}
