// Package examples checks the shipped examples: the Kubernetes manifest
// against the real API types, and the image with a real container runtime.
package examples

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestPodManifest(t *testing.T) {
	b, err := os.ReadFile("kubernetes/pod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict(b, &pod); err != nil {
		t.Fatalf("pod.yaml does not match the Kubernetes API: %v", err)
	}
	c := pod.Spec.Containers[0]
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/livez" {
		t.Fatalf("liveness probe must ask tend's /livez: %+v", c.LivenessProbe)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Fatalf("readiness probe must ask tend's /readyz: %+v", c.ReadinessProbe)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	grace, err1 := time.ParseDuration(env["TEND_GRACE_PERIOD"])
	drain, err2 := time.ParseDuration(env["TEND_DRAIN_TIMEOUT"])
	if err1 != nil || err2 != nil || pod.Spec.TerminationGracePeriodSeconds == nil {
		t.Fatalf("grace period and drain timeout must be set: %v %v", err1, err2)
	}
	k8s := time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	if k8s < grace+drain || k8s > grace+drain+10*time.Second {
		t.Fatalf("terminationGracePeriodSeconds %s should just cover tend's %s grace + %s drain", k8s, grace, drain)
	}
	if c.Command[0] != "/tend" {
		t.Fatalf("tend must be the entrypoint: %v", c.Command)
	}
}

// runtime wraps podman with the flags that work on these machines: vfs
// storage, cgroupfs, runc (crun refuses the hybrid cgroup host), no network.
type runtime struct {
	t   *testing.T
	dir string
}

func (r runtime) podman(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	base := []string{"--storage-driver", "vfs", "--cgroup-manager", "cgroupfs", "--events-backend", "file", "--runtime", "runc"}
	cmd := exec.CommandContext(ctx, "podman", append(base, args...)...)
	cmd.Dir = r.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

var runFlags = []string{"--network", "none", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"}

func (r runtime) run(timeout time.Duration, args ...string) (string, int) {
	out, err := r.podman(timeout, append(append([]string{"run"}, runFlags...), args...)...)
	if ee, ok := err.(*exec.ExitError); ok {
		return out, ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("podman run: %v\n%s", err, out)
	}
	return out, 0
}

func build(t *testing.T, dir, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

func TestImageWithPodman(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (make deps installs it)")
	}
	if _, err := exec.LookPath("runc"); err != nil {
		t.Skip("runc is not installed (make deps installs it)")
	}
	dir := t.TempDir()
	build(t, dir, filepath.Join(dir, "tend"), ".")
	build(t, dir, filepath.Join(dir, "fakeapp"), "./testdata/fakeapp")
	df, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), df, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runtime{t: t, dir: dir}
	tag := fmt.Sprintf("localhost/tend-test-%d", time.Now().UnixNano())
	// The Dockerfile's prebuilt target packages the binary we just built:
	// its golang build stage would need a registry.
	if out, err := r.podman(5*time.Minute, "build", "--target", "prebuilt", "--build-arg", "TEND_BINARY=tend", "-t", tag, "."); err != nil {
		t.Skipf("the container runtime cannot build images here: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = r.podman(time.Minute, "rmi", "-f", tag, tag+"-app") }) // best effort
	app := "FROM " + tag + "\nCOPY fakeapp /fakeapp\n"
	if err := os.WriteFile(filepath.Join(dir, "Containerfile.app"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := r.podman(5*time.Minute, "build", "-f", "Containerfile.app", "-t", tag+"-app", "."); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	image := tag + "-app"
	if out, code := r.run(time.Minute, "--rm", image, "/fakeapp", "exit", "0"); code != 0 {
		t.Skipf("the container runtime cannot start a container here (exit %d):\n%s", code, out)
	}

	t.Run("tend is PID 1 and the app's parent", func(t *testing.T) {
		out, code := r.run(time.Minute, "--rm", image, "/fakeapp", "info")
		if code != 0 || !strings.Contains(out, "ppid=1\n") || !strings.Contains(out, "init=/tend -- /fakeapp info") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("exit code", func(t *testing.T) {
		if out, code := r.run(time.Minute, "--rm", image, "/fakeapp", "exit", "3"); code != 3 {
			t.Fatalf("want 3 through podman, got %d:\n%s", code, out)
		}
	})
	t.Run("stop runs pre-stop", func(t *testing.T) {
		name := strings.TrimPrefix(tag, "localhost/") + "-stop"
		t.Cleanup(func() { _, _ = r.podman(time.Minute, "rm", "-f", name) }) // best effort
		if out, code := r.run(time.Minute, "-d", "--name", name, "-e", `TEND_PRE_STOP=["/fakeapp","info","pre-stop"]`,
			"-e", "TEND_GRACE_PERIOD=5s", image, "/fakeapp", "signals", "TERM", "0"); code != 0 {
			t.Fatalf("podman run -d: %s", out)
		}
		waitLogs(t, r, name, "ready")
		start := time.Now()
		if out, err := r.podman(time.Minute, "stop", "-t", "10", name); err != nil {
			t.Fatalf("podman stop: %v %s", err, out)
		}
		took := time.Since(start)
		code, _ := r.podman(time.Minute, "inspect", name, "--format", "{{.State.ExitCode}}")
		logs, _ := r.podman(time.Minute, "logs", name)
		pre, term := strings.Index(logs, "args=pre-stop"), strings.Index(logs, "got SIGTERM")
		if strings.TrimSpace(code) != "0" || pre < 0 || term < 0 || pre > term {
			t.Fatalf("exit %q; pre-stop must run before the app's TERM:\n%s", code, logs)
		}
		if took > 5*time.Second {
			t.Fatalf("stop took %s, beyond tend's 5s grace period", took)
		}
		t.Logf("podman stop took %s", took)
	})
	t.Run("healthcheck turns healthy", func(t *testing.T) {
		name := strings.TrimPrefix(tag, "localhost/") + "-health"
		t.Cleanup(func() { _, _ = r.podman(time.Minute, "rm", "-f", name) }) // best effort
		if out, code := r.run(time.Minute, "-d", "--name", name, "--health-cmd", `["/tend","--check","http://127.0.0.1:8081/readyz"]`,
			"-e", "TEND_HEALTH_ADDR=127.0.0.1:8081", image, "/fakeapp", "signals", "TERM", "0"); code != 0 {
			t.Fatalf("podman run -d: %s", out)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := r.podman(time.Minute, "healthcheck", "run", name)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("never healthy: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		status, _ := r.podman(time.Minute, "inspect", name, "--format", "{{.State.Health.Status}}")
		if !strings.Contains(status, "healthy") {
			t.Fatalf("health status %q", status)
		}
	})
}

func waitLogs(t *testing.T, r runtime, name, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		logs, _ := r.podman(time.Minute, "logs", name)
		if strings.Contains(logs, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the logs:\n%s", want, logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
