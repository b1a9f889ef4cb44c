package examples

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain gives the podman tests a store of their own, created here and
// removed at the end: podman's --root, --runroot and --tmpdir (libpod's
// database and alive file) under a new directory in the user's cache
// directory (vfs copies every layer, and /tmp can be a small tmpfs). A
// store someone already made with another driver, the default one
// included, then cannot refuse the tests' vfs ("database storage graph
// driver ... does not match"), and the user's images and containers are
// never touched. e2e/images_test.go does the same. Every image the tests
// use is built FROM scratch or imported from a tarball (the recipes'
// base), so a new store costs no pull. The skips are reported at the end
// (skipReport).
func TestMain(m *testing.M) {
	parent, err := os.UserCacheDir()
	if err != nil {
		parent = os.TempDir()
	}
	store, err := os.MkdirTemp(parent, "tend-podman-test-")
	if err != nil {
		store, err = os.MkdirTemp("", "tend-podman-test-")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "examples: cannot make a podman store: %v\n", err)
		os.Exit(1)
	}
	podmanStore = store
	own := []string{"--root", filepath.Join(store, "root"), "--runroot", filepath.Join(store, "run"), "--tmpdir", filepath.Join(store, "tmp")}
	podmanGlobal = append(slices.Clone(own), podmanGlobal...)
	code := m.Run()
	if _, err := os.Stat(filepath.Join(store, "root")); err == nil {
		// Anything a test left (a failed test's container, say) goes
		// first: a container holds a mount (its /dev/shm) in the store.
		// The store's flags are named here, whatever podmanGlobal holds:
		// this must never reach the user's containers.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "podman", append(own, "--storage-driver", "vfs", "rm", "-a", "-f", "-t", "0")...)
		cmd.WaitDelay = 5 * time.Second // conmon may hold the pipes
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "examples: podman rm -a in the test store: %v\n%s", err, out)
		}
		cancel()
	}
	if err := os.RemoveAll(store); err != nil {
		skipped("TestMain", fmt.Sprintf("the test's podman store %s is left behind: %v", store, err))
	}
	skipReport()
	os.Exit(code)
}

// podmanStore is the directory of the tests' own podman store.
var podmanStore string

// TestPodmanStoreIsTheTests: podman, as every test here runs it, keeps its
// images, containers and state in the store TestMain made, and its vfs
// driver is accepted there whatever the machine's default store holds.
func TestPodmanStoreIsTheTests(t *testing.T) {
	requirePodman(t)
	r := (podman{dir: t.TempDir()}).do(time.Minute, "info", "--format", "{{.Store.GraphRoot}} {{.Store.RunRoot}} {{.Store.GraphDriverName}}")
	if r.err != nil || r.code != 0 {
		t.Fatalf("podman info with the tests' flags: %s", r)
	}
	got := strings.Fields(r.stdout)
	if len(got) != 3 || !strings.HasPrefix(got[0], podmanStore+"/") || !strings.HasPrefix(got[1], podmanStore+"/") || got[2] != "vfs" {
		t.Fatalf("podman's graph root, run root and driver are %q; want both roots under %s, and vfs", got, podmanStore)
	}
}

var skips struct {
	sync.Mutex
	lines []string
}

// skipped records a skip for skipReport.
func skipped(test, reason string) {
	skips.Lock()
	defer skips.Unlock()
	skips.lines = append(skips.lines, fmt.Sprintf("examples: SKIPPED %s: %s", test, strings.TrimSpace(reason)))
}

// skipReport says which tests skipped and why, on stderr (which go test
// shows only with -v or a failure) and, where TEND_SKIP_REPORT names a
// file, appended to it: make test prints that file after go test, so a
// container test that could not run is never a silent "ok".
func skipReport() {
	skips.Lock()
	defer skips.Unlock()
	if len(skips.lines) == 0 {
		return
	}
	text := strings.Join(skips.lines, "\n") + "\n"
	fmt.Fprint(os.Stderr, text)
	path := os.Getenv("TEND_SKIP_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "examples: TEND_SKIP_REPORT: %v\n", err)
		return
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "examples: TEND_SKIP_REPORT: %v\n", err)
	}
}
