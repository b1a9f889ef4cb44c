package examples

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
)

// imageInfo is the part of `podman image inspect` that the test reads.
type imageInfo struct {
	Size   int64
	Config struct {
		Env        []string
		Entrypoint []string
		Cmd        []string
	}
	RootFS      struct{ Layers []string }
	Healthcheck *struct{ Test []string }
}

func inspectImage(t *testing.T, p podman, image string) (imageInfo, map[string]string) {
	t.Helper()
	r := p.must(t, 30*time.Second, "image", "inspect", image)
	var infos []imageInfo
	if err := json.Unmarshal([]byte(r.stdout), &infos); err != nil || len(infos) != 1 {
		t.Fatalf("podman image inspect %s: %v\n%s", image, err, r.stdout)
	}
	env := map[string]string{}
	for _, kv := range infos[0].Config.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return infos[0], env
}

// TestImage builds the repository's Dockerfile (its prebuilt target, from a
// freshly built tend) and examples/app/Dockerfile on top of it, with fakeapp
// as the app, and runs them with podman and runc.
func TestImage(t *testing.T) {
	requirePodman(t)
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() // the build context: tend, app, Containerfile.probe
	const version = "examples-test"
	goBuildTend(t, filepath.Join(dir, "tend"), version)
	goBuild(t, filepath.Join(dir, "app"), "./testdata/fakeapp")
	p := podman{dir: dir}
	base := fmt.Sprintf("tend-examples-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	probeImage, tendImage, appImage := "localhost/"+base+"-probe", "localhost/"+base+"-tend", "localhost/"+base+"-app"
	t.Cleanup(func() { _ = p.do(2*time.Minute, "rmi", "-f", probeImage, tendImage, appImage) }) // best effort: tags are unique

	// Can this machine run a container at all? Ask with an image that
	// holds only fakeapp, so that a broken tend or Dockerfile fails the
	// test below instead of skipping it.
	if err := os.WriteFile(filepath.Join(dir, "Containerfile.probe"), []byte("FROM scratch\nCOPY app /app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := p.do(2*time.Minute, "build", "-f", "Containerfile.probe", "-t", probeImage, "."); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot build a FROM scratch image here: %s", r)
	}
	if r := p.run(time.Minute, "--rm", probeImage, "/app", "exit", "0"); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot start a container here: %s", r)
	}

	// tend's image, from the Dockerfile's prebuilt target: the build
	// stage would need the golang image from a registry. --layers=false
	// leaves no cached image per ARG and LABEL step in the shared storage.
	p.must(t, 2*time.Minute, "build", "--layers=false", "-f", filepath.Join(repo, "Dockerfile"), "--target", "prebuilt",
		"--build-arg", "TEND_BINARY=tend", "-t", tendImage, ".")
	info, _ := inspectImage(t, p, tendImage)
	if !slices.Equal(info.Config.Entrypoint, []string{"/tend", "--"}) || len(info.RootFS.Layers) != 1 {
		t.Fatalf("tend's image should be one layer with ENTRYPOINT [/tend --]: %+v", info)
	}
	if st, err := os.Stat(filepath.Join(dir, "tend")); err != nil || info.Size > st.Size()+64<<10 {
		t.Fatalf("tend's image is %d bytes; it should hold nothing but /tend (%v)", info.Size, err)
	}

	// The example app image, as shipped, with fakeapp as /app. Docker
	// format, because the OCI format has no HEALTHCHECK.
	p.must(t, 2*time.Minute, "build", "--format", "docker", "-f", filepath.Join(repo, "examples/app/Dockerfile"),
		"--build-arg", "TEND_IMAGE="+tendImage, "-t", appImage, ".")
	info, env := inspectImage(t, p, appImage)
	const check = "http://127.0.0.1:8081/readyz"
	if info.Healthcheck == nil || !slices.Equal(info.Healthcheck.Test, []string{"CMD", "/tend", "--check", check}) {
		t.Errorf("HEALTHCHECK should be CMD [/tend --check %s]: %+v", check, info.Healthcheck)
	}
	if !slices.Equal(info.Config.Entrypoint, []string{"/tend", "--"}) || len(info.Config.Cmd) == 0 {
		t.Errorf("the app image should have ENTRYPOINT [/tend --] and a CMD: %+v", info.Config)
	}
	if addr := env["TEND_HEALTH_ADDR"]; !strings.Contains(check, "//"+addr+"/") {
		t.Errorf("TEND_HEALTH_ADDR %q is not where HEALTHCHECK asks (%s)", addr, check)
	}
	for _, hook := range []string{"TEND_POST_START", "TEND_PRE_STOP"} {
		var argv []string
		if err := json.Unmarshal([]byte(env[hook]), &argv); err != nil || len(argv) == 0 {
			t.Errorf("%s %q should be exec form (a scratch image has no shell): %v", hook, env[hook], err)
		}
	}
	grace, err1 := time.ParseDuration(env["TEND_GRACE_PERIOD"])
	drain, err2 := time.ParseDuration(env["TEND_DRAIN_TIMEOUT"])
	if err1 != nil || err2 != nil || grace+plan.Default().MinShutdownWindow+drain >= 10*time.Second {
		t.Fatalf("TEND_GRACE_PERIOD %q + the shutdown window + TEND_DRAIN_TIMEOUT %q should fit in docker stop's 10s: %v %v",
			env["TEND_GRACE_PERIOD"], env["TEND_DRAIN_TIMEOUT"], err1, err2)
	}

	// The example's hooks and readiness probe name an imaginary app's
	// modes; point them at fakeapp's. Everything else (ENTRYPOINT, grace
	// period, health address, HEALTHCHECK) runs as shipped. Markers in
	// stdout show that a hook ran, and when.
	const (
		postStartMark = `TEND_POST_START=["/app","info","post-start"]`
		preStop       = `TEND_PRE_STOP=["/app","info","pre-stop"]`
		readyProbe    = `TEND_READY_PROBE=["/app","exit","0"]`
	)
	quiet := []string{"--no-healthcheck", "-e", `TEND_POST_START=["/app","exit","0"]`, "-e", preStop, "-e", readyProbe}

	t.Run("tend is PID 1 and the app's parent", func(t *testing.T) {
		r := p.run(time.Minute, append(append([]string{"--rm"}, quiet...), appImage, "/app", "info")...)
		if r.err != nil || r.code != 0 || !strings.Contains(r.stdout, "\nppid=1\n") || strings.HasPrefix(r.stdout, "pid=1\n") ||
			!strings.Contains(r.stdout, "\ninit=/tend -- /app info\n") {
			t.Fatalf("want the app's parent to be PID 1, /tend -- /app info: %s", r)
		}
	})

	t.Run("exit codes come back through podman", func(t *testing.T) {
		for _, c := range []struct {
			app  []string
			want int
		}{
			{[]string{"exit", "3"}, 3},
			{[]string{"killself", "KILL"}, 137},
		} {
			r := p.run(time.Minute, append(append(append([]string{"--rm"}, quiet...), appImage, "/app"), c.app...)...)
			if r.err != nil || r.code != c.want {
				t.Errorf("/app %s: want exit %d: %s", strings.Join(c.app, " "), c.want, r)
			}
		}
	})

	// podman stop sends TERM to PID 1; tend runs the pre-stop before the
	// app gets TERM, and the container's code is the app's.
	for _, c := range []struct {
		name, marker string
		app          []string
		want         string
	}{
		{"stop runs pre-stop; app exits 0 on TERM", "ready", []string{"signals", "TERM", "0"}, "0"},
		{"stop runs pre-stop; app dies of TERM", "args=post-start", []string{"sleep", "1h"}, "143"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := base + "-stop-" + c.want
			p.detached(t, name, c.marker, append(append([]string{"--no-healthcheck", "-e", postStartMark, "-e", preStop, "-e", readyProbe},
				appImage, "/app"), c.app...)...)
			code, logs, took := p.stop(t, name)
			if code != c.want {
				t.Errorf("exit code %s, want %s", code, c.want)
			}
			pre := strings.Index(logs, "args=pre-stop")
			if pre < 0 {
				t.Errorf("the pre-stop hook did not run")
			}
			if term := strings.Index(logs, "got SIGTERM"); c.want == "0" && (term < 0 || term < pre) {
				t.Errorf("the app should get TERM after the pre-stop ran")
			}
			if took > grace/2 {
				t.Errorf("the stop took %s; it should end well within the %s grace period", took, grace)
			}
			if t.Failed() {
				t.Logf("stdout:\n%s", logs)
			}
			t.Logf("podman stop took %s (grace period %s)", took, grace)
		})
	}

	t.Run("STOPSIGNAL SIGQUIT stops through pre-stop", func(t *testing.T) {
		stopSignalImage(t, p, base, appImage, preStop, postStartMark)
	})

	t.Run("HEALTHCHECK turns healthy", func(t *testing.T) {
		// podman schedules HEALTHCHECK with systemd timers, and there is
		// no systemd here, so run the check by hand until it passes.
		name := base + "-healthy"
		p.detached(t, name, "ready", "-e", `TEND_POST_START=["/app","exit","0"]`, "-e", readyProbe, appImage, "/app", "signals", "TERM", "0")
		p.canExec(t, name)
		deadline := time.Now().Add(30 * time.Second)
		for {
			r := p.do(30*time.Second, "healthcheck", "run", name)
			if r.err == nil && r.code == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("never healthy: %s", r)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if st := strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.Health.Status}}", name).stdout); st != "healthy" {
			t.Fatalf("health status %q, want healthy", st)
		}
	})

	t.Run("HEALTHCHECK fails while the app is not ready", func(t *testing.T) {
		name := base + "-unready"
		p.detached(t, name, "ready", "-e", `TEND_POST_START=["/app","exit","0"]`, "-e", `TEND_READY_PROBE=["/app","exit","1"]`,
			appImage, "/app", "signals", "TERM", "0")
		p.canExec(t, name)
		// Wait until tend's server answers, and answers 503, so that
		// the failure below is tend's readiness, not a closed port.
		deadline := time.Now().Add(30 * time.Second)
		for {
			r := p.do(30*time.Second, "exec", name, "/tend", "--check", check)
			if r.code == 1 && strings.Contains(r.stdout+r.stderr, "503") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("tend --check inside the container never reported 503: %s", r)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if r := p.do(30*time.Second, "healthcheck", "run", name); r.err != nil || r.code == 0 {
			t.Fatalf("podman healthcheck run should fail while the ready probe fails: %s", r)
		}
	})

	t.Run("tend's own image is a pause container when asked", func(t *testing.T) {
		r := p.run(time.Minute, "--rm", "--entrypoint", "/tend", tendImage, "--version")
		if r.err != nil || r.code != 0 || !strings.Contains(r.stdout, version) {
			t.Fatalf("tend --version in its image should print %q: %s", version, r)
		}
		name := base + "-pause"
		// With no CMD and no TEND_PAUSE, usage and exit 1, as tini.
		if r := p.run(time.Minute, "--rm", tendImage); r.code != 1 || !strings.Contains(r.stderr, "no program given") {
			t.Fatalf("tend's image with no CMD should print usage and exit 1: %s", r)
		}
		p.detached(t, name, "sidecar mode", "-e", "TEND_VERBOSITY=2", "-e", "TEND_PAUSE=1", tendImage)
		if code, _, took := p.stop(t, name); code != "0" {
			t.Fatalf("a pause container should exit 0 on TERM, got %s after %s", code, took)
		}
	})
}
