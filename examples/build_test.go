package examples

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// goBuildTend builds tend into out as it ships, through the one place that
// names the build settings (packaging/gobuild.sh), with main.version set.
func goBuildTend(t *testing.T, out, version string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "packaging/gobuild.sh", "-o", out, ".")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "VERSION="+version, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("packaging/gobuild.sh -o %s: %v\n%s", out, err, b)
	}
}
