package main_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// testPKI writes a CA and a server and a client certificate it signed
// (127.0.0.1 and localhost) into dir, and returns their PEM files.
func testPKI(t *testing.T, dir string) (ca, srvCert, srvKey, cliCert, cliKey string) {
	t.Helper()
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := newKey()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tend test CA"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caX, _ := x509.ParseCertificate(caDER) // just made
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		k := newKey()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caX, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kd, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", "CERTIFICATE", der), write(name+".key", "PRIVATE KEY", kd)
	}
	srvCert, srvKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	cliCert, cliKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return write("ca.pem", "CERTIFICATE", caDER), srvCert, srvKey, cliCert, cliKey
}

// startGrpcio runs grpc/testdata/grpcio_server.py (grpcio, gRPC's C-core
// stack) on addr with args, and returns its HOST:PORT, or addr for a
// unix: one.
func startGrpcio(t *testing.T, addr string, args ...string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-I", "-c", "import grpc").Run(); err != nil {
		if os.Getenv("TEND_REQUIRE_CONTAINERS") != "" {
			t.Fatalf("python3-grpcio is needed: %v", err)
		}
		t.Skipf("no grpcio for %s (apt install python3-grpcio): %v", py, err)
	}
	cmd := exec.Command(py, append([]string{"-I", "grpc/testdata/grpcio_server.py", addr}, args...)...)
	stdin, _ := cmd.StdinPipe() // fails only after Start
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the server ends when stdin closes
		_ = cmd.Wait()    // its status is not the test's
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n') // "" at EOF fails below
		line <- s
	}()
	select {
	case s := <-line:
		port, ok := strings.CutPrefix(strings.TrimSpace(s), "ready ")
		switch {
		case !ok:
			t.Fatalf("grpcio server: %q", s)
		case strings.HasPrefix(addr, "unix:"):
			return addr
		}
		return "127.0.0.1:" + port
	case <-time.After(60 * time.Second):
		t.Fatal("grpcio server not ready in 60s")
	}
	return ""
}

// medianRun runs argv n times and returns its exit codes' set and the
// median wall time from start to exit.
func medianRun(t *testing.T, n int, argv ...string) (codes map[int]bool, median time.Duration, out string) {
	t.Helper()
	codes = map[int]bool{}
	var ds []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		b, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		ds = append(ds, time.Since(start))
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		codes[code], out = true, string(b)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return codes, ds[n/2], out
}

// TestCheckGRPCSAgainstGrpcio: --check grpcs:// against grpcio's TLS
// server: exit 0 verified with --check-ca and unverified without it, 1
// against another CA or against a server that wants a client certificate
// (mTLS, which --check does not offer: docs/design.md); and --check
// grpc://unix:/PATH against grpcio on a socket.
// grpc-health-probe -tls is timed beside it when it is on PATH.
func TestCheckGRPCSAgainstGrpcio(t *testing.T) {
	dir := t.TempDir()
	ca, sc, sk, _, _ := testPKI(t, dir)
	addr := startGrpcio(t, "127.0.0.1:0", sc, sk)
	codes, d, out := medianRun(t, 5, tendBin, "--check", "grpcs://"+addr, "--check-ca", ca)
	if !codes[0] || len(codes) != 1 {
		t.Errorf("--check grpcs:// verified: exit %v\n%s", codes, out)
	}
	t.Logf("tend --check grpcs:// (verified): median of 5 start to exit %s", d)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpcs://"+addr); !codes[0] {
		t.Errorf("--check grpcs:// unverified: exit %v\n%s", codes, out)
	}
	mtls := startGrpcio(t, "127.0.0.1:0", sc, sk, ca)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpcs://"+mtls, "--check-ca", ca); !codes[1] {
		t.Errorf("--check grpcs:// to a server that wants a client certificate: exit %v, want 1\n%s", codes, out)
	}
	other := t.TempDir()
	oca, _, _, _, _ := testPKI(t, other)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpcs://"+addr, "--check-ca", oca); !codes[1] || !strings.Contains(out, "certificate") {
		t.Errorf("--check grpcs:// against another CA: exit %v, want 1 naming the certificate\n%s", codes, out)
	}
	if ghp, err := exec.LookPath("grpc-health-probe"); err == nil {
		codes, d, out := medianRun(t, 5, ghp, "-addr", addr, "-tls", "-tls-ca-cert", ca)
		t.Logf("grpc-health-probe -tls (verified): exit %v, median of 5 start to exit %s %s", codes, d, strings.TrimSpace(out))
	}
	sock := "unix:" + filepath.Join(dir, "g.sock")
	startGrpcio(t, sock)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpc://"+sock+":/svc"); !codes[0] {
		t.Errorf("--check grpc://unix: exit %v\n%s", codes, out)
	}
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpc://"+sock+":/down"); !codes[1] || !strings.Contains(out, "NOT_SERVING") {
		t.Errorf("--check grpc://unix: NOT_SERVING: exit %v\n%s", codes, out)
	}
}
