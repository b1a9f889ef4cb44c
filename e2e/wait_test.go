package e2e

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// poll calls f every 100 ms until it says done, returns an error, or
// timeout passes.
func poll(timeout time.Duration, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("timed out after " + timeout.String())
		}
		<-tick.C
	}
}

// tail returns the last n lines of a file that contain match.
func tail(path string, n int, match string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error() + "\n"
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.Contains(l, match) {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n") + "\n"
}

// get makes one GET and returns the status code and body.
func get(url string) (int, string, error) {
	client := http.Client{Timeout: 2 * time.Second}
	r, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer r.Body.Close() // read below
	b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	return r.StatusCode, string(b), err
}

// portsFree fails the test when a host port the pod needs is taken: the
// pods use hostNetwork, and a clash would otherwise look like a tend bug.
func portsFree(t *testing.T, ports ...int) {
	t.Helper()
	for _, p := range ports {
		ln, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", p))
		if err != nil {
			t.Fatalf("host port %d is in use (the pods use hostNetwork): %v", p, err)
		}
		_ = ln.Close() // only the bind mattered
	}
}
