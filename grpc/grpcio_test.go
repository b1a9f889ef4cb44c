package grpc

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/grpcio"
	"github.com/tend-init/tend/internal/target"
	"github.com/tend-init/tend/internal/testpki"
)

func checkCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestGRPCSAgainstGrpcio: grpcs:// reaches grpcio's TLS server with ALPN
// h2: unverified as the kubelet's HTTPS probes, verified against the CA
// (--check-ca), and refused by a CA that did not sign the server's.
func TestGRPCSAgainstGrpcio(t *testing.T) {
	p := testpki.Write(t, t.TempDir())
	addr := grpcio.Start(t, "127.0.0.1:0", p.ServerCert, p.ServerKey)
	ctx := checkCtx(t)
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{}}, ""); err != nil {
		t.Errorf("grpcs, unverified: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: p.Pool}}, "svc"); err != nil {
		t.Errorf("grpcs, verified: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{}}, "down"); err == nil || !strings.Contains(err.Error(), "NOT_SERVING") {
		t.Errorf("grpcs, NOT_SERVING: %v", err)
	}
	other := testpki.Write(t, t.TempDir())
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: other.Pool}}, ""); err == nil || !strings.Contains(err.Error(), "certificate") {
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
	p := testpki.Write(t, t.TempDir())
	addr := grpcio.Start(t, "127.0.0.1:0", p.ServerCert, p.ServerKey, p.CA)
	ctx := checkCtx(t)
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: p.Pool, Cert: &p.Client}}, ""); err != nil {
		t.Errorf("mTLS with a client certificate: %v", err)
	}
	if err := Check(ctx, Target{Addr: addr, TLS: &target.TLS{Verify: true, CA: p.Pool}}, ""); err == nil {
		t.Error("mTLS without a client certificate passed")
	}
}

// TestGRPCOverUnixSocket: grpc://unix:/PATH reaches grpcio on a unix
// socket (grpcio's own unix:/PATH address), with :authority localhost.
func TestGRPCOverUnixSocket(t *testing.T) {
	sock := "unix:" + filepath.Join(t.TempDir(), "g.sock")
	addr := grpcio.Start(t, sock)
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
	p := testpki.Write(t, t.TempDir())
	cert, err := tls.LoadX509KeyPair(p.ServerCert, p.ServerKey)
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
