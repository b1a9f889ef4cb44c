package grpc

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/target"
)

// pki is a CA and two certificates it signed, made for one test.
type pki struct {
	ca                  *x509.CertPool
	client              tls.Certificate
	serverCert, servKey string // PEM files
	caFile              string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	now := time.Now()
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tend test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER) // just made
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string, *ecdsa.PrivateKey, []byte) {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage},
			KeyUsage: x509.KeyUsageDigitalSignature, DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kd, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", "CERTIFICATE", der), write(name+".key", "PRIVATE KEY", kd), k, der
	}
	p := pki{ca: x509.NewCertPool(), caFile: write("ca.pem", "CERTIFICATE", caDER)}
	p.ca.AddCert(caCert)
	p.serverCert, p.servKey, _, _ = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	cf, kf, _, _ := leaf("client", 3, x509.ExtKeyUsageClientAuth)
	if p.client, err = tls.LoadX509KeyPair(cf, kf); err != nil {
		t.Fatal(err)
	}
	return p
}

// grpcioServer starts testdata/grpcio_server.py (grpcio, gRPC's C-core
// stack) with args, and returns the address it serves: HOST:PORT, or
// unix:/PATH as given.
func grpcioServer(t *testing.T, addr string, args ...string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-I", "-c", "import grpc").Run(); err != nil {
		if os.Getenv("TEND_REQUIRE_CONTAINERS") != "" {
			t.Fatalf("python3-grpcio is needed: %v", err)
		}
		t.Skipf("no grpcio for %s (apt install python3-grpcio): %v", py, err)
	}
	cmd := exec.Command(py, append([]string{"-I", "testdata/grpcio_server.py", addr}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the server ends when stdin closes
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }() // its status is not the test's
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill() // hung: the test is over anyway
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n') // "" on EOF: fails below
		line <- s
	}()
	select {
	case s := <-line:
		port, ok := strings.CutPrefix(strings.TrimSpace(s), "ready ")
		if !ok {
			t.Fatalf("grpcio server: %q", s)
		}
		if strings.HasPrefix(addr, "unix:") {
			return addr
		}
		return "127.0.0.1:" + port
	case <-time.After(60 * time.Second):
		t.Fatal("grpcio server not ready in 60s")
	}
	return ""
}

func checkCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestGRPCSAgainstGrpcio: grpcs:// reaches grpcio's TLS server with ALPN
// h2: unverified as the kubelet's HTTPS probes, verified against the CA
// (--check-ca), and refused by a CA that did not sign the server's.
func TestGRPCSAgainstGrpcio(t *testing.T) {
	p := newPKI(t)
	addr := grpcioServer(t, "127.0.0.1:0", p.serverCert, p.servKey)
	ctx := checkCtx(t)
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{}}, ""); err != nil {
		t.Errorf("grpcs, unverified: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: p.ca}}, "svc"); err != nil {
		t.Errorf("grpcs, verified: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{}}, "down"); err == nil || !strings.Contains(err.Error(), "NOT_SERVING") {
		t.Errorf("grpcs, NOT_SERVING: %v", err)
	}
	other := newPKI(t)
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: other.ca}}, ""); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("grpcs against another CA: %v, want a certificate error", err)
	}
	// Plaintext to a TLS server fails, and says so in one line.
	if err := Check(ctx, Target{Addr: addr}, ""); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("grpc:// to a TLS server: %v", err)
	}
}

// TestGRPCSMutualTLS: a grpcio server that requires a client certificate
// refuses tend without one and answers with one (--check-cert/--check-key).
func TestGRPCSMutualTLS(t *testing.T) {
	p := newPKI(t)
	addr := grpcioServer(t, "127.0.0.1:0", p.serverCert, p.servKey, p.caFile)
	ctx := checkCtx(t)
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: p.ca, Cert: &p.client}}, ""); err != nil {
		t.Errorf("mTLS with a client certificate: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: p.ca}}, ""); err == nil {
		t.Error("mTLS without a client certificate passed")
	}
}

// TestGRPCOverUnixSocket: grpc://unix:/PATH reaches grpcio on a unix
// socket (grpcio's own unix:/PATH address), with :authority localhost.
func TestGRPCOverUnixSocket(t *testing.T) {
	sock := "unix:" + filepath.Join(t.TempDir(), "g.sock")
	addr := grpcioServer(t, sock)
	ctx := checkCtx(t)
	if err := Check(ctx, Target{Addr: addr}, "svc"); err != nil {
		t.Errorf("grpc over a unix socket: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr}, "down"); err == nil || !strings.Contains(err.Error(), "NOT_SERVING") {
		t.Errorf("grpc over a unix socket, NOT_SERVING: %v", err)
	}
}

// TestGRPCSWithoutH2: a TLS server that selects no ALPN protocol is
// refused, as grpc-go refuses it: it may not speak HTTP/2.
func TestGRPCSWithoutH2(t *testing.T) {
	p := newPKI(t)
	cert, err := tls.LoadX509KeyPair(p.serverCert, p.servKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // test end
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_ = c.(*tls.Conn).Handshake() // the client's verdict is the test's
			_, _ = c.Read(make([]byte, 1))
			_ = c.Close()
		}
	}()
	err = Check(checkCtx(t), Target{Addr: ln.Addr().String(), TLS: &target.TLS{}}, "")
	if err == nil || !strings.Contains(err.Error(), "not h2") {
		t.Errorf("TLS without h2: %v", err)
	}
}
