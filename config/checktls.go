package config

import (
	"crypto/x509"
	"fmt"
	"os"

	"github.com/tend-init/tend/internal/target"
)

// TLS reads the file --check-ca names into how --check meets an https or
// grpcs server: verified against the CA when one is given (unverified
// without it, as the kubelet's probes). The file is read at the check, not
// at the parse, as a HEALTHCHECK reads it at each run: a rotated CA is
// picked up. No client certificate (mTLS): tls.LoadX509KeyPair's key
// parsers and signers cost 176,128 bytes, over the 6.5 MiB budget
// (docs/design.md).
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
	return t, nil
}
