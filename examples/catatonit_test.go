package examples

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// debianCatatonit is catatonit's own binary (Debian's package, static),
// run beside tend where it can be used the same way.
const debianCatatonit = "/usr/bin/catatonit"

// TestInitPathCatatonit: `podman run --init --init-path TEND` with
// TEND_MODE=catatonit, beside Debian's catatonit as the same --init-path.
// podman 4.3 bind-mounts the file at /run/podman-init and runs
// `/run/podman-init -- CMD...` whatever the file is (checked here for
// both), so the name says nothing about the command line and only
// TEND_MODE selects the catatonit mode there (mode/catatonit.go).
// Both pass the app's exit code on, forward podman stop's TERM and reap
// orphans; with an app that ignores TERM, `podman stop -t 8` ends with
// podman's SIGKILL at 8 s under all three: catatonit never kills, tend's
// catatonit mode neither, and tend's own mode (what --init-path TEND runs
// without TEND_MODE), with no --grace-period and no post-stop hook, leaves
// a stop the runtime asked for to the runtime's own SIGKILL (issue 34,
// plan.Config.ResolveGrace).
func TestInitPathCatatonit(t *testing.T) {
	p, base, image := scratchFixture(t, "initcat", "FROM scratch\nCOPY app /app\nCOPY check /check\n")
	tend := filepath.Join(p.dir, "tend")
	inits := []struct {
		name string
		opts []string
	}{
		{"tend-catatonit-mode", []string{"--init", "--init-path", tend, "-e", "TEND_MODE=catatonit"}},
		{"tend-own-mode", []string{"--init", "--init-path", tend}},
		{"debian-catatonit", []string{"--init", "--init-path", debianCatatonit}},
	}
	if _, err := os.Stat(debianCatatonit); err != nil {
		inits = inits[:2]
		skipped(t.Name(), "no "+debianCatatonit+" (apt-get install -y catatonit): tend is not compared with catatonit")
	}
	for _, in := range inits {
		t.Run(in.name, func(t *testing.T) {
			run := func(args ...string) result {
				return p.run(time.Minute, append(append(append([]string{"--rm"}, in.opts...), image), args...)...)
			}
			r := run("/app", "info", "x y")
			if got := kvLines(r.stdout); r.err != nil || r.code != 0 || got["init"] != "/run/podman-init -- /app info x y" || got["ppid"] != "1" {
				t.Fatalf("want PID 1 to be /run/podman-init -- /app info x y, and the app's parent: %s", r)
			}
			if in.name == "tend-catatonit-mode" && r.stderr != "" {
				t.Errorf("catatonit logs errors only; tend as catatonit said: %q", r.stderr)
			}
			for _, c := range []struct {
				app  []string
				want int
			}{
				{[]string{"exit", "7"}, 7},
				{[]string{"killself", "TERM"}, 143},
				{[]string{"storm", "20"}, 0}, // 0 only once none of its 20 orphans is left
			} {
				if r := run(append([]string{"/app"}, c.app...)...); r.err != nil || r.code != c.want {
					t.Errorf("/app %s: want exit %d: %s", strings.Join(c.app, " "), c.want, r)
				}
			}
			ctr := base + "-" + in.name
			p.detached(t, ctr, "ready", append(append(cloneOpts(in.opts), image), "/app", "signals", "TERM", "0")...)
			code, logs, took := p.stop(t, ctr)
			if code != "0" || !strings.Contains(logs, "got SIGTERM") {
				t.Fatalf("want the app to get TERM and exit 0; got exit %s after %s:\n%s", code, took, logs)
			}
			t.Logf("podman stop, app exits on TERM: %s", took.Round(time.Millisecond))

			// An app that ignores TERM: who sends the SIGKILL, and when.
			ctr = base + "-" + in.name + "-ignore"
			p.detached(t, ctr, "ready", append(append(append(cloneOpts(in.opts), "-e", "TEND_VERBOSITY=2"), image), "/app", "signals", "USR1", "0")...)
			r = p.must(t, time.Minute, "stop", "-t", "8", ctr)
			code = strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.ExitCode}}", ctr).stdout)
			tendLog := p.must(t, 30*time.Second, "logs", ctr).stderr
			// tend's own kill lines ("grace period of 6s expired: sending
			// SIGKILL to the app"; the drain's "sent SIGKILL"), not its
			// "then no SIGKILL from tend".
			tendKilled := strings.Contains(tendLog, "sending SIGKILL") || strings.Contains(tendLog, "sent SIGKILL")
			t.Logf("podman stop -t 8, app ignores TERM: exit %s after %s; tend sent SIGKILL: %v", code, r.took.Round(time.Millisecond), tendKilled)
			if code != "137" {
				t.Errorf("want the app KILLed (137), got %s", code)
			}
			if tendKilled {
				t.Errorf("tend sent SIGKILL; want the runtime's own to end the stop (catatonit never kills; tend's own mode leaves it to the runtime without --grace-period or post-stop):\n%s", tendLog)
			}
			if in.name == "tend-own-mode" && !strings.Contains(tendLog, "then no SIGKILL from tend") {
				t.Errorf("tend's own mode did not say the runtime ends the stop:\n%s", tendLog)
			}
		})
	}
}

// cloneOpts copies opts, so that appends to it never share a backing array.
func cloneOpts(opts []string) []string { return append([]string(nil), opts...) }

// TestPodInfraTend: a pod whose infra (pause) container runs tend: as
// `catatonit -P` (tend installed as /catatonit, podman's infra command
// line) and as `tend --pause` (tend's own mode, which since issue 34 runs
// no program only when asked), beside Debian's catatonit -P in the same
// image. Each pod starts, PID 1 of its infra container is the binary
// named, a second container runs in the pod, and `podman pod stop` ends
// both, the infra container with 0. tend with no program and no --pause
// is a usage error: its infra container exits 1 with the usage line.
// `podman pod create` takes no --ulimit, so the infra container's rlimits
// come from a containers.conf of the test's own (CONTAINERS_CONF).
func TestPodInfraTend(t *testing.T) {
	requirePodman(t)
	p := podman{dir: t.TempDir()}
	goBuildTend(t, filepath.Join(p.dir, "tend"), "infra-test")
	goBuild(t, filepath.Join(p.dir, "app"), "./testdata/fakeapp")
	body := "FROM scratch\nCOPY tend /catatonit\nCOPY tend /tend\nCOPY app /app\n"
	if b, err := os.ReadFile(debianCatatonit); err == nil {
		if err := os.WriteFile(filepath.Join(p.dir, "debian-catatonit"), b, 0o755); err != nil {
			t.Fatal(err)
		}
		body += "COPY debian-catatonit /usr/bin/catatonit\n"
	} else {
		skipped(t.Name(), "no "+debianCatatonit+" (apt-get install -y catatonit): tend is not compared with catatonit")
	}
	conf := filepath.Join(p.dir, "containers.conf")
	if err := os.WriteFile(conf, []byte("[containers]\ndefault_ulimits = [\"nofile=4096:4096\", \"nproc=4096:4096\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONTAINERS_CONF", conf)
	if err := os.WriteFile(filepath.Join(p.dir, "Containerfile"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	base := uniqueBase("infra")
	image := "localhost/" + base
	t.Cleanup(func() { _ = p.do(2*time.Minute, "rmi", "-f", image) }) // best effort: the tag is unique
	if r := p.do(2*time.Minute, "build", "-t", image, "."); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot build a FROM scratch image here: %s", r)
	}
	if r := p.run(time.Minute, "--rm", image, "/app", "exit", "0"); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot start a container here: %s", r)
	}
	tend, err := os.ReadFile(filepath.Join(p.dir, "tend"))
	if err != nil {
		t.Fatal(err)
	}
	deb, _ := os.ReadFile(filepath.Join(p.dir, "debian-catatonit")) // nil when absent: that case is left out below

	for _, c := range []struct {
		name, command string
		binary        []byte
	}{
		{"tend-as-catatonit", "/catatonit -P", tend},
		{"tend-pause", "/tend --pause", tend},
		{"debian-catatonit", "/usr/bin/catatonit -P", deb},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.binary == nil {
				t.Skip("no " + debianCatatonit)
			}
			pod := base + "-" + c.name
			t.Cleanup(func() { _ = p.do(time.Minute, "pod", "rm", "-f", "-t", "0", pod) }) // best effort
			p.must(t, time.Minute, "pod", "create", "--name", pod, "--network", "none", "--infra-image", image, "--infra-command", c.command)
			start := p.must(t, time.Minute, "pod", "start", pod)
			infra := strings.TrimSpace(p.must(t, 30*time.Second, "pod", "inspect", "--format", "{{.InfraContainerID}}", pod).stdout)
			pid := strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.Pid}}", infra).stdout)
			exe, err := os.ReadFile("/proc/" + pid + "/exe")
			cmdline, _ := os.ReadFile("/proc/" + pid + "/cmdline") // empty on error: the comparison below says so
			if err != nil || !bytes.Equal(exe, c.binary) {
				t.Fatalf("infra PID 1 (host pid %s, %q) is not the binary of %q: %v", pid, cmdline, c.command, err)
			}
			if got := strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "); got != c.command {
				t.Fatalf("infra PID 1 runs %q, want %q", got, c.command)
			}
			app := pod + "-app"
			p.detached(t, app, "ready", "--pod", pod, image, "/app", "signals", "TERM", "0")
			stop := p.must(t, time.Minute, "pod", "stop", "-t", "20", pod)
			for _, ctr := range []string{app, infra} {
				code := strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.ExitCode}}", ctr).stdout)
				if code != "0" {
					logs := p.do(30*time.Second, "logs", ctr)
					t.Errorf("%s exited %s after podman pod stop, want 0: %s", ctr, code, logs)
				}
			}
			if logs := p.must(t, 30*time.Second, "logs", app).stdout; !strings.Contains(logs, "got SIGTERM") {
				t.Errorf("the app did not get podman pod stop's TERM: %q", logs)
			}
			if logs := p.must(t, 30*time.Second, "logs", infra); strings.Contains(logs.stderr, "ERROR") {
				t.Errorf("the infra container logged an error: %s", logs)
			}
			t.Logf("%s: podman pod start %s, podman pod stop %s", c.command, start.took.Round(time.Millisecond), stop.took.Round(time.Millisecond))
		})
	}

	t.Run("tend-no-program", func(t *testing.T) {
		pod := base + "-usage"
		t.Cleanup(func() { _ = p.do(time.Minute, "pod", "rm", "-f", "-t", "0", pod) }) // best effort
		p.must(t, time.Minute, "pod", "create", "--name", pod, "--network", "none", "--infra-image", image, "--infra-command", "/tend")
		_ = p.do(time.Minute, "pod", "start", pod) // its outcome is the infra container's, read below
		infra := strings.TrimSpace(p.must(t, 30*time.Second, "pod", "inspect", "--format", "{{.InfraContainerID}}", pod).stdout)
		deadline := time.Now().Add(30 * time.Second)
		for {
			st := strings.Fields(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", infra).stdout)
			if len(st) == 2 && st[0] == "exited" {
				logs := p.must(t, 30*time.Second, "logs", infra).stderr
				if st[1] != "1" || !strings.Contains(logs, "no program given") || !strings.Contains(logs, "--pause") {
					t.Fatalf("tend with no program as infra: want exit 1 and the usage line naming --pause, got exit %s: %q", st[1], logs)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("tend with no program as infra did not exit within 30s: %q", st)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
