package testpki

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
	"time"
)

// TestWrite: each certificate verifies against its own CA, read back from
// ca.pem as a tend --check-ca user would, for the names and the use it was
// made for, and for nothing else: not another name, not the other use,
// not another PKI's CA, not after its validity.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := Write(t, dir)
	other := Write(t, t.TempDir())
	b, err := os.ReadFile(p.CA)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		t.Fatalf("ca.pem: %q", b)
	}
	ca, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsCA || !ca.BasicConstraintsValid || ca.KeyUsage != x509.KeyUsageCertSign {
		t.Errorf("CA: IsCA %v, constraints %v, key usage %v", ca.IsCA, ca.BasicConstraintsValid, ca.KeyUsage)
	}
	fromFile := x509.NewCertPool()
	fromFile.AddCert(ca)
	now := time.Now()
	for _, c := range []struct {
		name      string
		cert, key string
		roots     *x509.CertPool
		host      string
		use       x509.ExtKeyUsage
		at        time.Time
		ok        bool
	}{
		{"server, localhost", p.ServerCert, p.ServerKey, fromFile, "localhost", x509.ExtKeyUsageServerAuth, now, true},
		{"server, 127.0.0.1", p.ServerCert, p.ServerKey, p.Pool, "127.0.0.1", x509.ExtKeyUsageServerAuth, now, true},
		{"server, another name", p.ServerCert, p.ServerKey, p.Pool, "example.com", x509.ExtKeyUsageServerAuth, now, false},
		{"server, as a client", p.ServerCert, p.ServerKey, p.Pool, "", x509.ExtKeyUsageClientAuth, now, false},
		{"server, another CA", p.ServerCert, p.ServerKey, other.Pool, "localhost", x509.ExtKeyUsageServerAuth, now, false},
		{"server, in two hours", p.ServerCert, p.ServerKey, p.Pool, "localhost", x509.ExtKeyUsageServerAuth, now.Add(2 * time.Hour), false},
		{"client", p.ClientCert, p.ClientKey, fromFile, "", x509.ExtKeyUsageClientAuth, now, true},
		{"client, as a server", p.ClientCert, p.ClientKey, p.Pool, "localhost", x509.ExtKeyUsageServerAuth, now, false},
		{"client, another CA", other.ClientCert, other.ClientKey, p.Pool, "", x509.ExtKeyUsageClientAuth, now, false},
	} {
		pair, err := tls.LoadX509KeyPair(c.cert, c.key)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		_, err = pair.Leaf.Verify(x509.VerifyOptions{Roots: c.roots, DNSName: c.host, KeyUsages: []x509.ExtKeyUsage{c.use}, CurrentTime: c.at})
		if (err == nil) != c.ok {
			t.Errorf("%s: verify: %v, want ok %v", c.name, err, c.ok)
		}
	}
	if p.Client.Leaf == nil || p.Client.Leaf.Subject.CommonName != "client" {
		t.Errorf("Client: leaf %v, want the client certificate", p.Client.Leaf)
	}
}
