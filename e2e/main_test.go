// Package e2e runs tend under a real kubelet: a standalone kubelet
// (static pods, no API server) built from k8s.io/kubernetes, on Debian's
// containerd and runc, with tend's own image as every pod's sandbox. Each
// test is one behaviour from issue 16; see README.md. `make e2e` (run.sh)
// builds the kubelet and runs these tests; run alone, they skip.
//
// The harness's design follows the verified recipe in shared/kube (NOTES.md,
// up.sh, down.sh): private state for containerd and the kubelet, images
// built FROM scratch with podman and imported into containerd's k8s.io
// namespace, pod status from the kubelet's read-only port. The code is our
// own.
package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// cl is the one cluster that TestMain starts for every test, and
// skipReason says why there is none. A test harness's shared fixture is
// the one package-level state here; tests reach it through need.
var (
	cl         *cluster
	skipReason string
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// runMain sets the cluster up, runs the tests and tears everything down,
// whatever happened: the teardown is deferred, so a failed set-up or a
// failed test still restores the host. (A test binary killed by -timeout
// skips deferred calls; run.sh runs teardown.sh again for that case.)
func runMain(m *testing.M) int {
	start := time.Now()
	c := newCluster()
	defer func() {
		t0 := time.Now()
		c.tearDown()
		logf("teardown took %s; whole run %s", time.Since(t0).Round(time.Millisecond), time.Since(start).Round(time.Second))
	}()
	reason, err := c.setUp()
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "e2e: set-up failed: %v\n%s", err, c.diag(""))
		return 1
	case reason != "" && os.Getenv("TEND_E2E_ALLOW_SKIP") != "1" && os.Getenv("TEND_E2E_KUBELET") != "":
		// Started by run.sh: a suite that skips proves nothing, so a
		// machine that cannot run it fails, unless E2E_ALLOW_SKIP=1.
		fmt.Fprintf(os.Stderr, "e2e: cannot run here: %s (E2E_ALLOW_SKIP=1 makes this a skip)\n", reason)
		return 1
	case reason != "":
		skipReason = reason
		logf("SKIP every test: %s", reason)
	default:
		cl = c
		logf("cluster up in %s", time.Since(start).Round(time.Second))
	}
	return m.Run()
}

// need returns the cluster, or skips the test with the reason there is none.
func need(t *testing.T) *cluster {
	t.Helper()
	if cl == nil {
		t.Skip(skipReason)
	}
	return cl
}

// logf prints a timestamped harness line on stderr (go test shows it
// with -v, and always when a test fails).
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s e2e: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}
