package notify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSenderUnderPodman: podman run --sdnotify=container, run as systemd
// would run it (NOTIFY_SOCKET set to a test-owned socket), hands the
// container a socket of its own and passes READY=1 on. tend's Sender
// (notifysend -tend) must be heard through that proxy. A scratch root
// holding only the static sender stands for the image.
func TestSenderUnderPodman(t *testing.T) {
	podman, err := exec.LookPath("podman")
	if err != nil || os.Getuid() != 0 {
		t.Skip("needs podman and root")
	}
	root := t.TempDir()
	data, err := os.ReadFile(senderBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notifysend"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "notify")
	fd := manager(t, name)
	// The rlimits: runc refuses to raise them above the host's (see
	// examples/podman_test.go).
	// A store of the test's own (an empty one: --rootfs needs no image),
	// so that a developer's podman store, whatever its driver, is never
	// touched (examples/main_test.go does the same).
	store := t.TempDir()
	cmd := exec.Command(podman, "--root", filepath.Join(store, "root"), "--runroot", filepath.Join(store, "run"), "--tmpdir", filepath.Join(store, "tmp"),
		"run", "--rm", "--sdnotify=container", "--network=none",
		"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
		"--rootfs", root, "/notifysend", "-tend", "READY=1\nSTATUS=from inside")
	cmd.Env = append(StripEnv(os.Environ()), EnvSocket+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("podman: %v\n%s", err, out)
	}
	var got []string
	for !strings.Contains(strings.Join(got, "\n"), "READY=1") {
		got = append(got, recvString(t, fd)) // a 10 s deadline per datagram (manager)
	}
	t.Logf("inside: %s; podman passed on %q", strings.TrimSpace(string(out)), got)
}
