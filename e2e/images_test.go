package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildImages builds tend, fakeapp and kapp statically, builds the images
// FROM scratch with podman (private vfs storage under the state dir, so
// podman's default store is untouched) and imports them into containerd's
// k8s.io namespace, where the kubelet finds them (imagePullPolicy: Never).
func (c *cluster) buildImages() error {
	ctxDir := c.path("build", "ctx")
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		return err
	}
	e2eDir, err := os.Getwd()
	if err != nil {
		return err
	}
	for _, b := range []struct{ dir, out, pkg string }{
		{c.repo, "tend", "."},
		{c.repo, "fakeapp", "./testdata/fakeapp"},
		{e2eDir, "app", "./kapp"},
	} {
		name, args := "go", []string{"build", "-buildvcs=false", "-trimpath"}
		if b.out == "tend" {
			name, args = "sh", []string{"packaging/gobuild.sh", "-buildvcs=false"} // as it ships
		}
		if err := run(5*time.Minute, b.dir, []string{"CGO_ENABLED=0"}, name, append(args, "-o", filepath.Join(ctxDir, b.out), b.pkg)...); err != nil {
			return err
		}
	}
	if err := busyboxRootfs(filepath.Join(ctxDir, "rootfs")); err != nil {
		return err
	}
	tools := "FROM scratch\nCOPY rootfs/ /\nCOPY tend /tend\nCOPY app /app\nCOPY fakeapp /fakeapp\nENV PATH=/bin\nENTRYPOINT [\"/tend\", \"--\"]\n"
	quit := "FROM " + imgTools + "\nSTOPSIGNAL SIGQUIT\n"
	// A pause container must ask for it: tend's image with no CMD prints
	// usage and exits 1, as tini's.
	sandbox := "FROM " + imgTend + "\nENV TEND_PAUSE=1\n"
	for name, text := range map[string]string{"Containerfile.tools": tools, "Containerfile.quit": quit, "Containerfile.sandbox": sandbox} {
		if err := os.WriteFile(filepath.Join(ctxDir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	builds := [][]string{
		// tend's own image, from the repository's Dockerfile (its
		// prebuilt target: the build stage would pull golang).
		{"-f", filepath.Join(c.repo, "Dockerfile"), "--target", "prebuilt", "--build-arg", "TEND_BINARY=tend", "-t", imgTend},
		// The example app image, as shipped, with kapp as /app.
		{"-f", filepath.Join(c.repo, "examples/app/Dockerfile"), "--build-arg", "TEND_IMAGE=" + imgTend, "-t", imgMyApp},
		{"-f", "Containerfile.tools", "-t", imgTools},
		{"-f", "Containerfile.quit", "-t", imgToolsQuit},
		{"-f", "Containerfile.sandbox", "-t", imgSandbox},
	}
	for _, args := range builds {
		if err := c.podman(ctxDir, append([]string{"build", "--format", "docker"}, append(args, ".")...)...); err != nil {
			return err
		}
	}
	for _, img := range []string{imgTend, imgMyApp, imgTools, imgToolsQuit, imgSandbox} {
		tar := c.path("build", strings.NewReplacer("/", "_", ":", "_").Replace(img)+".tar")
		if err := c.podman(ctxDir, "save", "--format", "docker-archive", "-o", tar, img); err != nil {
			return err
		}
		if err := run(2*time.Minute, ctxDir, nil, "ctr", "-a", c.sock, "-n", "k8s.io", "images", "import", tar); err != nil {
			return err
		}
	}
	return nil
}

// podman runs podman on the harness's private store. No events are
// logged (there is no journald) and cgroups are cgroupfs (no systemd).
func (c *cluster) podman(dir string, args ...string) error {
	global := []string{"--root", c.path("podman", "root"), "--runroot", c.path("podman", "run"),
		"--tmpdir", c.path("podman", "tmp"), "--storage-driver", "vfs",
		"--cgroup-manager", "cgroupfs", "--events-backend", "none"}
	return run(5*time.Minute, dir, nil, "podman", append(global, args...)...)
}

// busyboxRootfs lays out Debian's static busybox with a link per applet,
// for images whose hooks or probes need a shell.
func busyboxRootfs(root string) error {
	for _, d := range []string{"bin", "etc", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return err
	}
	b, err := os.ReadFile(bb)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "busybox"), b, 0o755); err != nil {
		return err
	}
	list, err := exec.Command(bb, "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	for _, applet := range strings.Fields(string(list)) {
		link := filepath.Join(root, "bin", applet)
		if applet == "busybox" {
			continue
		}
		if err := os.Symlink("busybox", link); err != nil && !os.IsExist(err) {
			return err
		}
	}
	files := map[string]string{
		"etc/passwd": "root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n",
		"etc/group":  "root:x:0:\nnogroup:x:65534:\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// run runs a command in dir, bounded by timeout; its output is part of
// the error.
func run(timeout time.Duration, dir string, env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
