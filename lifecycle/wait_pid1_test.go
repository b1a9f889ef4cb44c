package lifecycle

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

// waitHelperConfig is the PID-1 helper's wait: args are the port of a TCP
// dependency, a directory, and --wait-timeout. A second dependency is a
// command, run through the reaper as tend's exec probes, that marks the
// wait begun; post-stop says it ran.
func waitHelperConfig(args []string) func(*plan.Config) {
	return func(c *plan.Config) {
		timeout, _ := time.ParseDuration(args[2])
		marker := "touch " + filepath.Join(args[1], "waiting")
		c.WaitFor = []plan.Wait{
			{Name: "db", Spec: "tcp://127.0.0.1:" + args[0], Handler: probe.TCP{Addr: "127.0.0.1:" + args[0]}, Timeout: time.Second},
			{Name: "marker", Spec: marker, Handler: probe.Command{Cmd: hooks.Command{Shell: marker}}, Timeout: time.Second},
		}
		c.WaitTimeout = timeout
		c.PostStop = []hooks.Action{hooks.Command{Shell: "echo POSTSTOP"}}
		c.Verbosity = 2 // the progress and the outcome, in the test's stderr
	}
}

// freePort is a port nothing listens on (yet).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	_ = ln.Close() // the port is what we wanted
	return port
}

// awaitFile polls for path until the deadline: the helper's only way to
// say its wait has begun.
func awaitFile(t *testing.T, path string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear within %s", path, d)
}

// readAll reads the helper's lines up to RESULT, which it returns.
func readAll(t *testing.T, r *bufio.Reader) (lines []string, result string) {
	t.Helper()
	for {
		s := readUntil(t, r, "", 60*time.Second)
		if strings.HasPrefix(s, "RESULT") {
			return lines, s
		}
		lines = append(lines, s)
	}
}

// TestPID1WaitFor: as PID 1, the app starts only once its TCP dependency
// accepts connections; reports, over 5 runs, the time from the listener's
// opening to the app's first line.
func TestPID1WaitFor(t *testing.T) {
	var took []time.Duration
	for i := 0; i < 5; i++ {
		dir := t.TempDir()
		port := freePort(t)
		cmd, _, out := pid1(t, "wait", port, dir, "60s")
		awaitFile(t, filepath.Join(dir, "waiting"), 30*time.Second)
		// A few refused attempts first: the backoff has grown by then.
		time.Sleep(time.Duration(i) * 300 * time.Millisecond) // a spread of backoff states, not a synchronisation
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		opened := time.Now()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				_ = c.Close() // an accepted connection is the whole answer
			}
		}()
		readUntil(t, out, "APP", 60*time.Second)
		took = append(took, time.Since(opened))
		lines, res := readAll(t, out)
		_ = ln.Close() // the test's listener, done
		if field(t, res, "code") != "0" || field(t, res, "leftover") != "false" || !slices.Contains(lines, "POSTSTOP") {
			t.Fatalf("run %d: want code 0, nothing left, post-stop run: %s %q", i, res, lines)
		}
		_ = cmd.Wait() // its status is the helper's, already checked via RESULT
	}
	slices.Sort(took)
	t.Logf("port open -> app start: median %s (min %s, max %s, 5 runs, backoff cap %s)", took[2].Round(time.Millisecond), took[0].Round(time.Millisecond), took[4].Round(time.Millisecond), probe.BackoffCap)
}

// TestPID1WaitEndsWithoutApp: TERM during the wait, and the timeout, end
// it with no app; post-stop runs; the codes are 0 and 69.
func TestPID1WaitEndsWithoutApp(t *testing.T) {
	for _, c := range []struct {
		name, timeout string
		term          bool
		code          int
	}{
		{name: "TERM", timeout: "60s", term: true, code: 0},
		{name: "timeout", timeout: "1s", code: plan.ExitStartHookFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd, _, out := pid1(t, "wait", freePort(t), dir, c.timeout)
			awaitFile(t, filepath.Join(dir, "waiting"), 30*time.Second)
			if c.term {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			lines, res := readAll(t, out)
			if field(t, res, "code") != strconv.Itoa(c.code) || field(t, res, "leftover") != "false" {
				t.Fatalf("want code %d, nothing left: %s", c.code, res)
			}
			if slices.Contains(lines, "APP") || !slices.Contains(lines, "POSTSTOP") {
				t.Fatalf("want no app and post-stop run, got %q", lines)
			}
			_ = cmd.Wait() // its status is the helper's, already checked via RESULT
		})
	}
}
