package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// node is the kubelet's node name: static pods are named NAME-node.
const node = "tend-e2e"

// cluster is containerd plus a standalone kubelet, with every file they
// write under state (the teardown script's default, /tmp/tend-e2e).
type cluster struct {
	state   string // private root of everything: sockets, configs, logs, manifests
	repo    string // tend's repository root
	kubelet string // the kubelet binary (run.sh builds it)
	sock    string // containerd's socket

	containerd *exec.Cmd
	kubeletCmd *exec.Cmd
	cri        *criClient
	exits      *exitWatcher
}

func newCluster() *cluster {
	state := os.Getenv("TEND_E2E_STATE")
	if state == "" {
		state = "/tmp/tend-e2e"
	}
	repo, _ := filepath.Abs("..") // Abs of a relative path fails only without a cwd
	return &cluster{state: state, repo: repo, kubelet: os.Getenv("TEND_E2E_KUBELET"), sock: filepath.Join(state, "containerd.sock")}
}

func (c *cluster) path(elem ...string) string {
	return filepath.Join(append([]string{c.state}, elem...)...)
}

// setUp brings the cluster up. It returns a reason to skip every test
// when this machine cannot run containers at all, and an error when the
// harness itself is broken.
func (c *cluster) setUp() (skip string, err error) {
	if c.kubelet == "" {
		return "TEND_E2E_KUBELET is not set: run `make e2e`, which builds the kubelet", nil
	}
	if os.Geteuid() != 0 {
		return "needs root (containerd, runc, the kubelet)", nil
	}
	var missing []string
	for _, tool := range []string{"containerd", "containerd-shim-runc-v2", "ctr", "runc", "podman", "busybox"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("missing %s: run `make e2e` (it installs containerd runc podman busybox-static from apt)", strings.Join(missing, ", ")), nil
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		return "no cgroup v1 memory controller at /sys/fs/cgroup/memory: this harness is set up for cgroup v1 hosts", nil
	}
	// Leftovers of an earlier run that was killed, then a fresh record of
	// the host state that teardown.sh restores.
	if err := c.script(2*time.Minute, "teardown.sh"); err != nil {
		return "", fmt.Errorf("cleaning up an earlier run: %w", err)
	}
	if err := c.script(time.Minute, "hoststate.sh", "record"); err != nil {
		return "", err
	}
	for _, d := range []string{"logs", "manifests", "events", "pod-logs", "kubelet", "cni/net.d", "build"} {
		if err := os.MkdirAll(c.path(d), 0o755); err != nil {
			return "", err
		}
	}
	fill := strings.NewReplacer("@STATE@", c.state, "@SANDBOX@", imgSandbox)
	for _, name := range []string{"containerd.toml", "kubelet-config.yaml"} {
		b, err := os.ReadFile(filepath.Join("config", name))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(c.path(name), []byte(fill.Replace(string(b))), 0o644); err != nil {
			return "", err
		}
	}

	if err := c.startContainerd(); err != nil {
		return fmt.Sprintf("containerd did not start, so this machine cannot run the tests: %v\n%s", err, c.diag("")), nil
	}
	t0 := time.Now()
	if err := c.buildImages(); err != nil {
		return "", fmt.Errorf("building the images: %w", err)
	}
	logf("binaries and images built and imported in %s", time.Since(t0).Round(time.Millisecond))
	if err := c.preflight(); err != nil {
		return fmt.Sprintf("containerd cannot run a plain container here (ctr run, no kubelet, no tend): %v", err), nil
	}
	if c.exits, err = watchExits(c.sock, c.path("logs", "events.log")); err != nil {
		return "", err
	}
	if err := c.startKubelet(); err != nil {
		return "", err
	}
	return "", nil
}

// script runs one of the shell scripts beside this file with STATE set.
func (c *cluster) script(timeout time.Duration, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), "STATE="+c.state)
	out, err := cmd.CombinedOutput()
	if len(out) > 0 {
		logf("%s %s:\n%s", name, strings.Join(args, " "), strings.TrimRight(string(out), "\n"))
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// daemon starts a long-running program with its output in logs/NAME.log
// and its pid in NAME.pid, for teardown.sh when this process is gone.
func (c *cluster) daemon(name string, argv ...string) (*exec.Cmd, error) {
	f, err := os.OpenFile(c.path("logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child holds its own copy
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	// Its own process group: a Ctrl-C at the terminal reaches the test,
	// which then stops the daemons in order instead of all at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if err := os.WriteFile(c.path(name+".pid"), []byte(fmt.Sprint(cmd.Process.Pid)), 0o644); err != nil {
		return cmd, err
	}
	logf("started %s, pid %d", name, cmd.Process.Pid)
	return cmd, nil
}

func (c *cluster) startContainerd() error {
	var err error
	if c.containerd, err = c.daemon("containerd", "containerd", "--config", c.path("containerd.toml"), "--log-level", "info"); err != nil {
		return err
	}
	return poll(30*time.Second, func() (bool, error) {
		if c.cri == nil {
			if c.cri, err = dialCRI(c.sock); err != nil {
				return false, err
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return c.cri.version(ctx) == nil, nil
	})
}

func (c *cluster) startKubelet() error {
	var err error
	c.kubeletCmd, err = c.daemon("kubelet", c.kubelet,
		"--config="+c.path("kubelet-config.yaml"),
		"--root-dir="+c.path("kubelet"),
		"--cert-dir="+c.path("kubelet", "pki"),
		"--hostname-override="+node,
		// -v=3 logs "Probe succeeded", which the tests look for.
		"--v=3")
	if err != nil {
		return err
	}
	err = poll(90*time.Second, func() (bool, error) {
		r, err := http.Get("http://127.0.0.1:10248/healthz")
		if err != nil {
			return false, nil
		}
		_ = r.Body.Close() // only the status matters
		return r.StatusCode == 200, nil
	})
	if err != nil {
		return fmt.Errorf("the kubelet did not become healthy on 127.0.0.1:10248: %w", err)
	}
	_, err = c.pods() // and its read-only port answers
	return err
}

// preflight asks whether containerd can run any container at all, with
// neither the kubelet nor tend involved, so that a machine without working
// containers skips the tests while a broken tend fails them.
func (c *cluster) preflight() error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ctr", "-a", c.sock, "-n", "k8s.io", "run", "--rm",
		"--cgroup", "/tend-e2e-preflight", imgTools, "tend-e2e-preflight", "/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

// tearDown stops everything in order (pods gracefully, the kubelet, the
// pods' sandboxes, containerd), then lets teardown.sh restore the host.
// Each step is bounded and each runs even when an earlier one failed.
func (c *cluster) tearDown() {
	if c.kubeletCmd != nil {
		if err := c.removeAllPods(90 * time.Second); err != nil {
			logf("teardown: %v", err)
		}
		stop("kubelet", c.kubeletCmd, 20*time.Second)
	}
	if c.cri != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := c.cri.removeAllSandboxes(ctx); err != nil {
			logf("teardown: removing sandboxes: %v", err)
		}
		cancel()
		_ = c.cri.close() // the connection dies with containerd anyway
	}
	if c.exits != nil {
		c.exits.stop()
	}
	if c.containerd != nil {
		stop("containerd", c.containerd, 20*time.Second)
	}
	if err := c.script(3*time.Minute, "teardown.sh"); err != nil {
		logf("teardown: %v", err)
	}
}

// stop ends a daemon this harness started: TERM, then KILL after timeout.
func stop(name string, cmd *exec.Cmd, timeout time.Duration) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	_ = cmd.Process.Signal(syscall.SIGTERM) // an exited process is what we want anyway
	select {
	case err := <-done:
		logf("stopped %s: %v", name, err)
	case <-time.After(timeout):
		_ = cmd.Process.Kill() // as above
		logf("killed %s: no exit %s after TERM: %v", name, timeout, <-done)
	}
}

// diag is what a failure message carries: the ends of the kubelet's and
// containerd's logs (the kubelet's lines about pod first, when given) and
// the runtime's view of every container.
func (c *cluster) diag(pod string) string {
	var b strings.Builder
	if pod != "" {
		fmt.Fprintf(&b, "--- kubelet log, lines about %s (last 40):\n%s", pod, tail(c.path("logs", "kubelet.log"), 40, pod))
	}
	fmt.Fprintf(&b, "--- kubelet log (last 25):\n%s", tail(c.path("logs", "kubelet.log"), 25, ""))
	fmt.Fprintf(&b, "--- containerd log (last 25):\n%s", tail(c.path("logs", "containerd.log"), 25, ""))
	if c.cri != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		fmt.Fprintf(&b, "--- containers (CRI):\n%s", c.cri.table(ctx))
	}
	return b.String()
}
