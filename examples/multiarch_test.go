package examples

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// releaseArches reads RELEASE_ARCHES from the Makefile: the image must hold
// every architecture that `make release` builds.
func releaseArches(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RELEASE_ARCHES\s*:?=\s*(.+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the Makefile has no RELEASE_ARCHES")
	}
	return strings.Fields(string(m[1]))
}

// ociPlatform is the platform podman records for a Go GOARCH (GOARM=7).
func ociPlatform(arch string) string {
	if arch == "arm" {
		return "linux/arm/v7"
	}
	return "linux/" + arch
}

// TestMultiArchImage runs `make image` (the Dockerfile's prebuilt target
// once per release architecture, joined in a manifest list) under a unique
// name, into a temporary OUT, and checks what it made: the manifest lists
// every architecture, each image is tagged and labelled for its own, the
// labels carry the version, commit, source and licence, and the image
// runs tend on this machine's architecture. `make image-check` runs it.
func TestMultiArchImage(t *testing.T) {
	requirePodman(t)
	if _, err := exec.LookPath("make"); err != nil {
		cannotRun(t, "make is not installed: %v", err)
	}
	arches := releaseArches(t)
	dir := t.TempDir()
	p := podman{dir: dir}
	const version = "multiarch-test"
	image := "localhost/" + uniqueBase("multiarch") + ":" + version
	t.Cleanup(func() {
		_ = p.do(time.Minute, "manifest", "rm", image) // best effort: the name is unique
		for _, arch := range arches {
			_ = p.do(time.Minute, "rmi", "-f", image+"-"+arch) // best effort, as above
		}
	})

	// The commit make's REVISION defaults to, read just before make runs
	// (a commit made while the test runs would otherwise differ).
	revision := "unknown"
	if out, err := exec.Command("git", "-C", "..", "rev-parse", "HEAD").Output(); err == nil {
		revision = strings.TrimSpace(string(out))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "image",
		"OUT="+dir, "IMAGE="+image, "VERSION="+version, "IMAGE_LICENSES=LicenseRef-tend-test",
		"PODMAN_FLAGS="+strings.Join(podmanGlobal, " "))
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}

	// The manifest list names each architecture once, and only those.
	var list struct {
		Manifests []struct {
			Platform struct{ OS, Architecture, Variant string }
		}
	}
	r := p.must(t, time.Minute, "manifest", "inspect", image)
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("podman manifest inspect: %v\n%s", err, r.stdout)
	}
	var got, want []string
	for _, m := range list.Manifests {
		pl := m.Platform.OS + "/" + m.Platform.Architecture
		if m.Platform.Variant != "" {
			pl += "/" + m.Platform.Variant
		}
		got = append(got, pl)
	}
	for _, arch := range arches {
		want = append(want, ociPlatform(arch))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the manifest lists %v, want %v", got, want)
	}
	t.Logf("manifest list %s: %s", image, strings.Join(got, " "))

	// Each architecture's image: its platform, and the labels.
	wantLabels := map[string]string{
		"org.opencontainers.image.title":    "tend",
		"org.opencontainers.image.source":   "https://github.com/tend-init/tend",
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": revision,
		"org.opencontainers.image.licenses": "LicenseRef-tend-test",
	}
	for _, arch := range arches {
		var infos []struct {
			Os, Architecture string
			Labels           map[string]string
			Config           struct{ Entrypoint []string }
		}
		r := p.must(t, time.Minute, "image", "inspect", image+"-"+arch)
		if err := json.Unmarshal([]byte(r.stdout), &infos); err != nil || len(infos) != 1 {
			t.Fatalf("podman image inspect %s-%s: %v\n%s", image, arch, err, r.stdout)
		}
		info := infos[0]
		if info.Os != "linux" || info.Architecture != arch {
			t.Errorf("%s-%s is for %s/%s", image, arch, info.Os, info.Architecture)
		}
		for k, v := range wantLabels {
			if info.Labels[k] != v {
				t.Errorf("%s-%s: label %s is %q, want %q", image, arch, k, info.Labels[k], v)
			}
		}
		if info.Labels["org.opencontainers.image.description"] == "" {
			t.Errorf("%s-%s has no org.opencontainers.image.description", image, arch)
		}
		if !slices.Equal(info.Config.Entrypoint, []string{"/tend", "--"}) {
			t.Errorf("%s-%s: ENTRYPOINT %q, want [/tend --]", image, arch, info.Config.Entrypoint)
		}
	}

	// Run by the list's name, podman picks this machine's architecture:
	// tend runs the command after its ENTRYPOINT's --, here tend itself.
	if !slices.Contains(arches, runtime.GOARCH) {
		t.Skipf("no %s image to run on this machine", runtime.GOARCH)
	}
	for _, args := range [][]string{{"/tend", "--version"}, {"--entrypoint", "/tend", image, "--version"}} {
		if args[0] == "/tend" {
			args = append([]string{image}, args...)
		}
		r := p.run(time.Minute, append([]string{"--rm"}, args...)...)
		if r.err != nil || r.code != 0 || strings.TrimSpace(r.stdout) != "tend "+version {
			t.Fatalf("podman run %s: want tend %s: %s", strings.Join(args, " "), version, r)
		}
	}
}
