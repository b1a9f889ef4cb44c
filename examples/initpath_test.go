package examples

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requirePodman skips (or, under TEND_REQUIRE_CONTAINERS=1, fails) the
// test unless podman and runc are installed.
func requirePodman(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"podman", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			cannotRun(t, "%s is not installed (apt-get install -y podman runc): %v", tool, err)
		}
	}
}

// scratchFixture is the set-up the init-path and seccomp tests share:
// podman, the test binaries built into a new directory (tend, with version
// WHAT-test; fakeapp as app; pidfdcheck as check), and an image FROM
// scratch out of the Containerfile body, named after a unique base and
// removed when the test ends. A machine that cannot build or run a
// container at all skips the test (see cannotRun), so that only a broken
// tend fails it.
func scratchFixture(t *testing.T, what, body string) (p podman, base, image string) {
	t.Helper()
	requirePodman(t)
	p = podman{dir: t.TempDir()}
	goBuildTend(t, filepath.Join(p.dir, "tend"), what+"-test")
	goBuild(t, filepath.Join(p.dir, "app"), "./testdata/fakeapp")
	goBuild(t, filepath.Join(p.dir, "check"), "./testdata/pidfdcheck")
	base = uniqueBase(what)
	image = "localhost/" + base
	file := filepath.Join(p.dir, "Containerfile")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.do(2*time.Minute, "rmi", "-f", image) }) // best effort: the tag is unique
	if r := p.do(2*time.Minute, "build", "-f", file, "-t", image, "."); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot build a FROM scratch image here: %s", r)
	}
	if r := p.run(time.Minute, "--rm", "--entrypoint", "/app", image, "exit", "0"); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot start a container here: %s", r)
	}
	return p, base, image
}

// uniqueBase names this run's images and containers.
func uniqueBase(what string) string {
	return fmt.Sprintf("tend-%s-test-%d-%d", what, os.Getpid(), time.Now().UnixNano())
}

// initChecks runs, in containers of image started with the podman run
// options opts, what tend must do as a container's PID 1: pass the app's
// exit code on, forward `podman stop`'s TERM to the app, reap the orphans
// the app leaves, and drain what is left when the app exits (TERM, then
// KILL at the drain timeout) before the post-stop hook runs. The image
// holds fakeapp as /app and pidfdcheck as /check; tend is PID 1 by opts or
// by the image's entrypoint. name prefixes the containers' names.
func initChecks(t *testing.T, p podman, name, image string, opts ...string) {
	run := func(args ...string) result {
		return p.run(time.Minute, append(append(append([]string{"--rm"}, opts...), image), args...)...)
	}
	runEnv := func(env []string, args ...string) result {
		var e []string
		for _, kv := range env {
			e = append(e, "-e", kv)
		}
		return p.run(time.Minute, append(append(append(append([]string{"--rm"}, e...), opts...), image), args...)...)
	}

	t.Run("exit codes pass through", func(t *testing.T) {
		for _, c := range []struct {
			app  []string
			want int
		}{
			{[]string{"exit", "7"}, 7},
			{[]string{"killself", "TERM"}, 143},
		} {
			if r := run(append([]string{"/app"}, c.app...)...); r.err != nil || r.code != c.want {
				t.Errorf("/app %s: want exit %d: %s", strings.Join(c.app, " "), c.want, r)
			}
		}
	})

	t.Run("podman stop's TERM reaches the app", func(t *testing.T) {
		ctr := name + "-stop"
		p.detached(t, ctr, "ready", append(append(append([]string{}, opts...), image), "/app", "signals", "TERM", "0")...)
		code, logs, took := p.stop(t, ctr)
		if code != "0" || !strings.Contains(logs, "got SIGTERM") {
			t.Fatalf("want the app to get TERM and exit 0; got exit %s after %s:\n%s", code, took, logs)
		}
	})

	t.Run("orphans are reaped", func(t *testing.T) {
		// storm exits 0 only once none of the 20 orphans it leaves is
		// left, dead or alive; -w logs each one that tend reaps.
		r := runEnv([]string{"TEND_WARN_ON_REAP=1"}, "/app", "storm", "20")
		if n := strings.Count(r.stderr, "Reaped zombie process"); r.err != nil || r.code != 0 || n < 20 {
			t.Fatalf("want 20 orphans reaped and exit 0, got %d reaped: %s", n, r)
		}
	})

	t.Run("the tree is drained when the app exits", func(t *testing.T) {
		// The app leaves a child that ignores TERM and exits 0: tend
		// sends TERM to the rest, KILL at the drain timeout, and then
		// runs post-stop, which finds the child gone.
		r := runEnv([]string{"TEND_VERBOSITY=2", "TEND_DRAIN_TIMEOUT=300ms", `TEND_POST_STOP=["/check","gone","/daemon.pid"]`},
			"/app", "daemon", "/daemon.pid")
		if r.err != nil || r.code != 0 || !strings.Contains(r.stdout, "gone pid=") ||
			!strings.Contains(r.stderr, "drain: sent SIGTERM to every process") || !strings.Contains(r.stderr, "sent SIGKILL to every process") {
			t.Fatalf("want TERM, then KILL to the TERM-ignoring child, and post-stop to find it gone: %s", r)
		}
	})
}

// TestInitPath runs tend as the runtime's own init, `podman run --init
// --init-path TEND`, in an image that holds no tend: podman bind-mounts it
// at /run/podman-init and runs `/run/podman-init -- CMD...` (Docker's
// --init runs `/sbin/docker-init -- CMD...` the same way). tend's flags
// cannot be passed that way, so the checks configure it through TEND_*.
func TestInitPath(t *testing.T) {
	p, base, image := scratchFixture(t, "initpath", "FROM scratch\nCOPY app /app\nCOPY check /check\n")
	tend := filepath.Join(p.dir, "tend")
	opts := []string{"--init", "--init-path", tend}

	t.Run("podman runs INIT -- CMD", func(t *testing.T) {
		r := p.run(time.Minute, append(append([]string{"--rm", "-e", "TEND_VERBOSITY=2"}, opts...), image, "/app", "info", "x y")...)
		got := kvLines(r.stdout)
		if r.err != nil || r.code != 0 || got["init"] != "/run/podman-init -- /app info x y" || got["ppid"] != "1" {
			t.Fatalf("want PID 1 to be /run/podman-init -- /app info x y, and the app's parent: %s", r)
		}
		// tend, not some other init, is PID 1: it logs as [tend 1].
		if !strings.Contains(r.stderr, "[tend 1]") {
			t.Fatalf("no log line from tend as PID 1: %s", r)
		}
	})
	initChecks(t, p, base, image, opts...)
}

// kvLines parses fakeapp info's key=value lines.
func kvLines(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}
