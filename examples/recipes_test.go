//go:build recipes

// The README's recipes, built as the README shows them on a Debian root
// made with debootstrap, and checked with podman. They take minutes (a cold
// run debootstraps), so they build only with -tags recipes: `make recipes`
// runs them, `go test ./...` does not.

package examples

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// recipeCache keeps the base root's tarball, so that a new podman store
// imports it again without debootstrap.
const recipeCache = "/var/cache/tend-recipes"

var (
	baseOnce  sync.Once
	baseImage string
	baseErr   string
)

// recipeBase returns the base image, localhost/tend-recipes-base:KEY, KEY
// a hash of base.sh and the package list: the image if podman has it, else
// imported from the cached tarball, else debootstrapped (base.sh) first.
// The tarball is kept for the next run; the image lives in the tests' own
// store (TestMain), which goes at the end of the run.
func recipeBase(t *testing.T, p podman) string {
	t.Helper()
	baseOnce.Do(func() {
		h := sha256.New()
		for _, f := range []string{"recipes/base.sh", "recipes/packages"} {
			b, err := os.ReadFile(f)
			if err != nil {
				baseErr = err.Error()
				return
			}
			h.Write(b)
		}
		key := hex.EncodeToString(h.Sum(nil))[:16]
		image := "localhost/tend-recipes-base:" + key
		if r := p.do(time.Minute, "image", "exists", image); r.err == nil && r.code == 0 {
			t.Logf("recipe base: %s is there already", image)
			baseImage = image
			return
		}
		tarball := filepath.Join(recipeCache, "base-"+key+".tar")
		if _, err := os.Stat(tarball); err != nil {
			if err := os.MkdirAll(recipeCache, 0o755); err != nil {
				baseErr = err.Error()
				return
			}
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "./recipes/base.sh", tarball)
			out, err := cmd.CombinedOutput()
			if err != nil {
				baseErr = "base.sh: " + err.Error() + "\n" + tail(string(out), 4000)
				return
			}
			t.Logf("recipe base: debootstrap took %.1f s", time.Since(start).Seconds())
		}
		start := time.Now()
		if r := p.do(10*time.Minute, "import", tarball, image); r.err != nil || r.code != 0 {
			baseErr = "podman import: " + r.String()
			return
		}
		t.Logf("recipe base: podman import took %.1f s", time.Since(start).Seconds())
		baseImage = image
	})
	if baseImage == "" {
		t.Fatalf("no base image for the recipes: %s", baseErr)
	}
	return baseImage
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// recipeImage builds the README's recipe name on the base image: a
// Containerfile whose `tend` stage holds bin/tend (what `make build` wrote),
// then FROM the base, then the README's block as it is, then the test's
// own fixture lines, if any. The image and containers are named after a
// unique base, removed when the test ends.
func recipeImage(t *testing.T, name string, fixture ...string) (p podman, image, unique string) {
	t.Helper()
	requirePodman(t)
	if _, err := exec.LookPath("debootstrap"); err != nil {
		cannotRun(t, "debootstrap is not installed (make deps): %v", err)
	}
	tend, err := filepath.Abs("../bin/tend")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(tend)
	if err != nil {
		t.Fatalf("%v: run make build first (make recipes does)", err)
	}
	p = podman{dir: t.TempDir()}
	base := recipeBase(t, p)
	if err := os.WriteFile(filepath.Join(p.dir, "tend"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "FROM scratch AS tend\nCOPY tend /tend\nFROM " + base + "\n" + readmeRecipe(t, name)
	for _, line := range fixture {
		body += line + "\n"
	}
	if err := os.WriteFile(filepath.Join(p.dir, "Containerfile"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	unique = uniqueBase("recipe-" + name)
	image = "localhost/" + unique
	t.Cleanup(func() { _ = p.do(2*time.Minute, "rmi", "-f", image) }) // best effort: the tag is unique
	args := append([]string{"build", "--format", "docker", "--layers=false", "-t", image}, runFlags[2:]...)
	p.must(t, 10*time.Minute, append(args, ".")...)
	return p, image, unique
}

// recipeRun starts the recipe's container in the background, with the
// README's ENTRYPOINT and CMD, on podman's bridge network (ports published
// on loopback only, at ports podman picks) and the rlimits of runFlags.
func recipeRun(t *testing.T, p podman, name, image string, extra ...string) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			// What the container said is the first thing to read.
			r := p.do(30*time.Second, "logs", name)
			t.Logf("logs of %s:\n%s%s", name, tail(r.stdout, 8000), tail(r.stderr, 8000))
		}
		_ = p.do(time.Minute, "rm", "-f", "-t", "0", name) // best effort: the name is unique
	})
	args := append([]string{"run", "-d", "--name", name, "--no-healthcheck"}, runFlags[2:]...)
	args = append(append(args, extra...), image)
	p.must(t, 2*time.Minute, args...)
}

// until calls f until it returns true or the deadline passes, failing the
// test with what f last said.
func until(t *testing.T, within time.Duration, what string, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, last := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s; last: %s", what, within, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exitCode is the container's exit code, as podman inspect reports it.
func exitCode(t *testing.T, p podman, name string) string {
	t.Helper()
	return strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.ExitCode}}", name).stdout)
}

// logTimes returns, for each of marks, podman's timestamp of the first
// line of the container's log that holds it (zero if none does), and the
// whole log. conmon stamps each line as it reads it, on the host's clock,
// so the times compare with time.Now() in the test.
func logTimes(t *testing.T, p podman, name string, marks ...string) (map[string]time.Time, string) {
	t.Helper()
	r := p.must(t, 30*time.Second, "logs", "-t", name)
	all := r.stdout + r.stderr
	at := map[string]time.Time{}
	for _, line := range strings.Split(all, "\n") {
		ts, msg, _ := strings.Cut(line, " ")
		when, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			continue
		}
		for _, m := range marks {
			if _, seen := at[m]; !seen && strings.Contains(msg, m) {
				at[m] = when
			}
		}
	}
	return at, all
}

// gap formats b-a in seconds for the figures, or "none" when either time
// was not seen in the log (the check that follows says what is missing).
func gap(a, b time.Time) string {
	if a.IsZero() || b.IsZero() {
		return "none"
	}
	return strconv.FormatFloat(b.Sub(a).Seconds(), 'f', 3, 64)
}
