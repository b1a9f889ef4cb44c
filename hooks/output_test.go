package hooks

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProbeKeepsItsOutput: stdout and stderr come back together, in the
// order written, and the exit code is the verdict.
func TestProbeKeepsItsOutput(t *testing.T) {
	r := startReaper(t)
	out, err := Probe(context.Background(), r, Command{Shell: "printf out; printf err >&2; exit 3"}, os.Environ(), 10*time.Second)
	if err == nil || err.Error() != "exit code 3" || string(out.Head) != "outerr" || out.Total != 6 {
		t.Fatalf("got %q (%d bytes), %v", out.Head, out.Total, err)
	}
}

// TestProbeOutputIsBounded: 1 MB of output is read to the end, so the probe
// never blocks on a full pipe, but only MaxOutput bytes are kept.
func TestProbeOutputIsBounded(t *testing.T) {
	r := startReaper(t)
	out, err := Probe(context.Background(), r, Command{Shell: "head -c 1000000 /dev/zero"}, os.Environ(), 10*time.Second)
	if err != nil || len(out.Head) != MaxOutput || out.Total != 1000000 || !bytes.Equal(out.Head, make([]byte, MaxOutput)) {
		t.Fatalf("kept %d of %d bytes, %v", len(out.Head), out.Total, err)
	}
}

// TestProbeDoesNotWaitForItsGrandchild: a background process that keeps
// the output pipe open does not hold the result: the probe is over when
// its command exits, with what the command wrote.
func TestProbeDoesNotWaitForItsGrandchild(t *testing.T) {
	r := startReaper(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	res := make(chan error, 1)
	var out Output
	go func() {
		var err error
		out, err = Probe(context.Background(), r, Command{Shell: "sleep 60 & echo $! > " + pidfile + "; echo done"}, os.Environ(), time.Minute)
		res <- err
	}()
	select {
	case err := <-res:
		if err != nil || string(out.Head) != "done\n" {
			t.Fatalf("got %q, %v", out.Head, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the probe waited for a grandchild holding its output")
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL) // the grandchild; the test's reaper collects it
	}
}

// TestHookOutputIsRelayed: a hook's stdout and stderr reach the Relay's
// streams before Run returns.
func TestHookOutputIsRelayed(t *testing.T) {
	r := startReaper(t)
	out, errw := &gate{open: make(chan struct{})}, &gate{open: make(chan struct{})}
	close(out.open)
	close(errw.open)
	run := Runner{Starter: r, Env: os.Environ(), Timeout: 10 * time.Second, Out: NewRelay(out, errw)}
	if err := run.Run(context.Background(), []Action{Command{Shell: "echo to-out; echo to-err >&2"}}); err != nil {
		t.Fatal(err)
	}
	// Flush waits up to flushWait; a loaded machine may need more.
	run.Out.Flush(time.Now().Add(10 * time.Second))
	if out.String() != "to-out\n" || errw.String() != "to-err\n" {
		t.Fatalf("stdout %q, stderr %q", out.String(), errw.String())
	}
}
