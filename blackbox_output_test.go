package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stuckStdout returns a FIFO that is held open and never read, as behind a
// stuck log shipper: a write to it blocks once its 64 KiB are full.
func stuckStdout(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "stdout")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	stuck, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stuck.Close() }) // test cleanup
	return fifo
}

// TestStuckStdoutCannotFailAProbe: with tend's stdout stuck, an exec
// liveness probe writes 100 kB at every run. Its output goes to tend's own
// bounded capture, so it passes run after run and the app keeps running
// until TERM. (Before: the probe blocked on the full pipe, timed out, and
// tend stopped a healthy app with 75.)
func TestStuckStdoutCannotFailAProbe(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	p := startTend(t, opts{shell: `exec "$TEND" -s -v ` +
		`--live-probe 'head -c 100000 /dev/zero; echo run >> ` + runs + `' --probe-period 100ms --probe-timeout 1s ` +
		`-- "$FAKEAPP" sleep 1h > ` + stuckStdout(t)})
	// Ten passing runs: ten periods with the stream stuck all along.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(runs)
		if strings.Count(string(b), "run\n") >= 10 {
			break
		}
		if time.Now().After(deadline) || p.stderr.has("liveness probe failed") {
			t.Fatalf("the probe did not keep passing (%q):\n%s", b, p.stderr)
		}
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(20 * time.Second); code != 143 || p.stderr.has("failed") {
		t.Fatalf("want the app's 143 after TERM and no failure, got %d\n%s", code, p.stderr)
	}
}

// TestStuckStdoutCannotFailAHook: with tend's stdout stuck, post-start
// writes 300 kB and exits 0. The Relay queues what it can and drops the
// rest, so the hook succeeds at once and the app runs on until TERM.
// (Before: the hook blocked on the full pipe until its timeout, and tend
// stopped the app with 69.)
func TestStuckStdoutCannotFailAHook(t *testing.T) {
	p := startTend(t, opts{shell: `exec "$TEND" -s -v --hook-timeout 5s ` +
		`--post-start 'head -c 300000 /dev/zero' -- "$FAKEAPP" sleep 1h > ` + stuckStdout(t)})
	p.stderr.wait(t, "post-start succeeded", 20*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(20 * time.Second); code != 143 || p.stderr.has("failed") {
		t.Fatalf("want the app's 143 after TERM and no failure, got %d\n%s", code, p.stderr)
	}
}

// TestProbeOutputExcerptIsBoundedAndEscaped: a readiness probe that fails
// after writing colour codes, a NUL, U+2028 and 200 kB of random bytes.
// Its failure quotes a short excerpt with every one of them escaped, in
// /readyz?verbose and in the log, and says how much there was. (Before:
// the output went raw to tend's stdout, and the failure said only "exit
// code 3".)
func TestProbeOutputExcerptIsBoundedAndEscaped(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-vv", "--health-addr", addr,
		"--ready-probe", `printf '\033[31mred\000nul\342\200\250sep\n'; head -c 200000 /dev/urandom; exit 3`,
		"--probe-period", "100ms", "--", fakeappBin, "signals", "TERM", "0")
	var line string
	for deadline := time.Now().Add(20 * time.Second); line == ""; time.Sleep(20 * time.Millisecond) {
		_, body := status(addr, "/readyz?verbose")
		for _, l := range strings.Split(body, "\n") {
			if strings.Contains(l, "exit code 3") {
				line = l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed check in /readyz?verbose: %q", body)
		}
	}
	want := `exit code 3; output "\x1b[31mred\x00nul\u2028sep\n`
	if !strings.Contains(line, want) || !strings.Contains(line, "… (200019 bytes)") || len(line) > 1024 {
		t.Fatalf("want a short excerpt containing %s and the size, got (%d bytes) %q", want, len(line), line)
	}
	logged := p.stderr.wait(t, "readiness probe attempt failed", 10*time.Second)
	if !strings.Contains(logged, want) || len(logged) > 2048 {
		t.Fatalf("the log line must quote the same excerpt: %q", logged)
	}
	for _, s := range []string{line, logged} {
		if strings.ContainsAny(s, "\x00\x1b\u2028") {
			t.Fatalf("raw control bytes in %q", s)
		}
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(20 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
}

// fileText is path's contents, or "" while it does not exist.
func fileText(path string) string {
	b, _ := os.ReadFile(path) // a missing file reads as empty
	return string(b)
}
