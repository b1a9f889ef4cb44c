package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stopSignalImage builds an image like nginx's, with STOPSIGNAL SIGQUIT and
// TEND_STOP_SIGNAL=QUIT, and checks that `podman stop` (which then sends
// QUIT) goes through tend's stop sequence: pre-stop first, then QUIT to the
// app, whose code comes back.
func stopSignalImage(t *testing.T, p podman, base, appImage string, env ...string) {
	image := "localhost/" + base + "-quit"
	file := filepath.Join(p.dir, "Containerfile.quit")
	body := "FROM " + appImage + "\nSTOPSIGNAL SIGQUIT\nENV TEND_STOP_SIGNAL=QUIT\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	p.must(t, 2*time.Minute, "build", "--format", "docker", "-f", file, "-t", image, ".")
	t.Cleanup(func() { _ = p.do(2*time.Minute, "rmi", "-f", image) }) // best effort: the tag is unique
	name := base + "-quit"
	args := []string{"--no-healthcheck"}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	p.detached(t, name, "ready", append(args, image, "/app", "signals", "QUIT", "0")...)
	code, logs, took := p.stop(t, name)
	pre, quit := strings.Index(logs, "args=pre-stop"), strings.Index(logs, "got SIGQUIT")
	if code != "0" || pre < 0 || quit < pre || strings.Contains(logs, "got SIGTERM") {
		t.Fatalf("want pre-stop, then QUIT, then exit 0; got exit %s after %s:\n%s", code, took, logs)
	}
	t.Logf("podman stop with STOPSIGNAL SIGQUIT took %s", took)
}
