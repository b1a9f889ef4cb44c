package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/tend-init/tend/internal/target"
)

// TLS reads the files --check-ca, --check-cert and --check-key name into
// how --check meets an https or grpcs server: verified against the CA when
// one is given (unverified without it, as the kubelet's probes), and with
// the client certificate when one is given. The files are read at the
// check, not at the parse, as a HEALTHCHECK reads them at each run: a
// rotated certificate is picked up.
func (c *Healthcheck) TLS() (target.TLS, error) {
	var t target.TLS
	if c.CA != "" {
		pem, err := os.ReadFile(c.CA)
		if err != nil {
			return t, err
		}
		t.CA = x509.NewCertPool()
		if !t.CA.AppendCertsFromPEM(pem) {
			return t, fmt.Errorf("--check-ca %s holds no PEM certificate", c.CA)
		}
		t.Verify = true
	}
	if c.Cert != "" {
		cert, err := tls.LoadX509KeyPair(c.Cert, c.Key)
		if err != nil {
			return t, fmt.Errorf("--check-cert/--check-key: %w", err)
		}
		t.Cert = &cert
	}
	return t, nil
}
