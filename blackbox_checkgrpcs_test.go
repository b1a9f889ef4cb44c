package main_test

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/grpcio"
	"github.com/tend-init/tend/internal/testpki"
)

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
	p := testpki.Write(t, dir)
	ca := p.CA
	addr := grpcio.Start(t, "127.0.0.1:0", p.ServerCert, p.ServerKey)
	codes, d, out := medianRun(t, 5, tendBin, "--check", "grpcs://"+addr, "--check-ca", ca)
	if !codes[0] || len(codes) != 1 {
		t.Errorf("--check grpcs:// verified: exit %v\n%s", codes, out)
	}
	t.Logf("tend --check grpcs:// (verified): median of 5 start to exit %s", d)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpcs://"+addr); !codes[0] {
		t.Errorf("--check grpcs:// unverified: exit %v\n%s", codes, out)
	}
	mtls := grpcio.Start(t, "127.0.0.1:0", p.ServerCert, p.ServerKey, ca)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpcs://"+mtls, "--check-ca", ca); !codes[1] {
		t.Errorf("--check grpcs:// to a server that wants a client certificate: exit %v, want 1\n%s", codes, out)
	}
	oca := testpki.Write(t, t.TempDir()).CA
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpcs://"+addr, "--check-ca", oca); !codes[1] || !strings.Contains(out, "certificate") {
		t.Errorf("--check grpcs:// against another CA: exit %v, want 1 naming the certificate\n%s", codes, out)
	}
	if ghp, err := exec.LookPath("grpc-health-probe"); err == nil {
		codes, d, out := medianRun(t, 5, ghp, "-addr", addr, "-tls", "-tls-ca-cert", ca)
		t.Logf("grpc-health-probe -tls (verified): exit %v, median of 5 start to exit %s %s", codes, d, strings.TrimSpace(out))
	}
	sock := "unix:" + filepath.Join(dir, "g.sock")
	grpcio.Start(t, sock)
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpc://"+sock+":/svc"); !codes[0] {
		t.Errorf("--check grpc://unix: exit %v\n%s", codes, out)
	}
	if codes, _, out := medianRun(t, 1, tendBin, "--check", "grpc://"+sock+":/down"); !codes[1] || !strings.Contains(out, "NOT_SERVING") {
		t.Errorf("--check grpc://unix: NOT_SERVING: exit %v\n%s", codes, out)
	}
}
