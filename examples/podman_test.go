package examples

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// podmanGlobal are the global flags that run containers on these machines:
// vfs storage and cgroupfs need no overlay or systemd, the file events
// backend needs no journald, and runc is named because crun refuses the
// hybrid cgroup hierarchy. TestMain puts the tests' own store first.
var podmanGlobal = []string{"--storage-driver", "vfs", "--cgroup-manager", "cgroupfs", "--events-backend", "file", "--runtime", "runc"}

// runFlags go with every `podman run`: no network (none is reachable), and
// rlimits below the host's, which the runtime refuses to raise.
var runFlags = []string{"--network", "none", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"}

// podman runs podman commands in a build context directory.
type podman struct{ dir string }

// result is one podman command's outcome. err is set only when podman could
// not run or timed out; a non-zero exit is just code.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
	err            error
}

func (r result) String() string {
	return fmt.Sprintf("exit %d, err %v, after %s\nstdout:\n%s\nstderr:\n%s", r.code, r.err, r.took, r.stdout, r.stderr)
}

// do runs podman with the global flags, bounded by timeout.
func (p podman) do(timeout time.Duration, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "podman", append(slices.Clone(podmanGlobal), args...)...)
	cmd.Dir = p.dir
	// conmon outlives `podman run -d`; should it hold the output pipes,
	// stop waiting for them soon after podman itself exits.
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.code, r.err = -1, fmt.Errorf("podman %s: timed out after %s", strings.Join(args, " "), timeout)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		r.code, r.err = -1, err
	}
	return r
}

// must runs podman and fails the test unless it exits 0.
func (p podman) must(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	r := p.do(timeout, args...)
	if r.err != nil || r.code != 0 {
		t.Fatalf("podman %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// run is `podman run` with runFlags.
func (p podman) run(timeout time.Duration, args ...string) result {
	return p.do(timeout, append(append([]string{"run"}, runFlags...), args...)...)
}

// detached starts a named container in the background, removed when the
// test ends, and waits for marker in its output: the point from which the
// container is known to be set up (tend's handlers in place, the app
// running), so a stop that follows is not a race with start-up.
func (p podman) detached(t *testing.T, name, marker string, args ...string) {
	t.Helper()
	t.Cleanup(func() { _ = p.do(time.Minute, "rm", "-f", "-t", "0", name) }) // best effort: the images' cleanup removes it too
	if r := p.run(time.Minute, append([]string{"-d", "--name", name}, args...)...); r.err != nil || r.code != 0 {
		t.Fatalf("podman run -d: %s", r)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := p.do(30*time.Second, "logs", name)
		if strings.Contains(r.stdout+r.stderr, marker) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output of %s: %s", marker, name, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// canExec checks that podman can run a process inside the running
// container name, as HEALTHCHECK does: in a chroot (a debootstrap root, say)
// runc's exec cannot find the container's files, and that is the machine,
// not tend.
func (p podman) canExec(t *testing.T, name string) {
	t.Helper()
	if r := p.do(30*time.Second, "exec", name, "/app", "exit", "0"); r.err != nil || r.code != 0 {
		cannotRun(t, "podman cannot exec in a running container here: %s", r)
	}
}

// stop is `podman stop` (TERM, then KILL after 30s, beyond every grace
// period here, so that only tend escalates). It returns the container's
// exit code, its stdout, and how long the stop took.
func (p podman) stop(t *testing.T, name string) (code, stdout string, took time.Duration) {
	t.Helper()
	r := p.must(t, time.Minute, "stop", "-t", "30", name)
	code = strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.ExitCode}}", name).stdout)
	logs := p.must(t, 30*time.Second, "logs", name)
	return code, logs.stdout, r.took
}

// goBuild builds a static binary into out, from the repository root.
func goBuild(t *testing.T, out, pkg string, flags ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append(append([]string{"build", "-trimpath"}, flags...), "-o", out, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

// cannotRun skips a test that this machine cannot run (no podman, no
// working container runtime), and says so at the end of the run
// (skipReport): a skip that only -v shows went unnoticed. Where the tests
// are required to run (CI's .ci/run and make image-check set
// TEND_REQUIRE_CONTAINERS=1, after installing podman), it fails instead: a
// skipped image test proves nothing.
func cannotRun(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("TEND_REQUIRE_CONTAINERS") == "1" {
		t.Fatalf("TEND_REQUIRE_CONTAINERS=1: "+format, args...)
	}
	reason := fmt.Sprintf(format, args...)
	skipped(t.Name(), reason+" (TEND_REQUIRE_CONTAINERS=1 makes this a failure)")
	t.Skip("SKIPPED: " + reason)
}
