// Package grpcio runs grpcio_server.py beside this file: a gRPC health
// server on grpcio (gRPC's own C-core stack, no code shared with tend), the
// reference peer for grpc(s):// checks. grpc's tests and the black-box
// --check tests share it. Only tests import it, so it is never in the binary.
package grpcio

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// python is the interpreter CI installs python3-grpcio for (.ci/deps.sh).
const python = "/usr/bin/python3"

// Start runs the server on addr (grpcio's form: 127.0.0.1:0 or
// unix:/PATH) with args (CERT KEY [CLIENT_CA] for TLS, mTLS), and returns
// the address it serves: 127.0.0.1:PORT, or addr as given for unix:.
// Without grpcio the test skips, or fails where TEND_REQUIRE_CONTAINERS
// is set (CI). The server ends at the test's cleanup, when its stdin
// closes; a server that hangs there is killed after 30 s.
func Start(t testing.TB, addr string, args ...string) string {
	t.Helper()
	if err := exec.Command(python, "-I", "-c", "import grpc").Run(); err != nil {
		if os.Getenv("TEND_REQUIRE_CONTAINERS") != "" {
			t.Fatalf("python3-grpcio is needed: %v", err)
		}
		t.Skipf("no grpcio for %s (apt install python3-grpcio): %v", python, err)
	}
	// The script is found from this file, not from the caller's working
	// directory, which is its own package's.
	_, self, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(self) {
		t.Fatalf("grpcio: no source path for grpcio_server.py (%q; built with -trimpath?)", self)
	}
	script := filepath.Join(filepath.Dir(self), "grpcio_server.py")
	cmd := exec.Command(python, append([]string{"-I", script, addr}, args...)...)
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
