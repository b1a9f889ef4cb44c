//go:build recipes

package examples

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigFile is the download in flight during the stop: 200 MiB.
const bigFile = 200 << 20

// TestRecipeNginx: the README's nginx recipe. A download in flight when
// `podman stop` sends TERM completes in full (tend turns the stop into
// nginx's graceful QUIT, after the pre-stop), /readyz turns 503 as the stop
// begins, and the container exits 0. `podman stop` keeps its default 10 s:
// tend's stop must end inside it.
func TestRecipeNginx(t *testing.T) {
	// The fixture: the file, and nginx's own rate limit on it. The limit
	// must be nginx's: with curl's --limit-rate, the sockets between
	// them (here, podman's port forwarding) took in 130 MB within 0.2 s,
	// nginx had sent it all before its stop signal, and even a TERM (a
	// fast shutdown, which cuts a request in flight) let the download
	// complete. At 50 MiB/s nginx is still sending when it gets QUIT, 2 s
	// into the stop, and done well before the 6 s grace period.
	p, image, name := recipeImage(t, "nginx",
		"RUN truncate -s 200M /var/www/html/big && echo 'limit_rate 50m;' >/etc/nginx/conf.d/tend-test-rate.conf")
	// TEND_VERBOSITY=2 puts tend's stop steps in the log (a run option;
	// the recipe is as the README shows it).
	recipeRun(t, p, name, image, "-e", "TEND_VERBOSITY=2", "-p", "127.0.0.1::80", "-p", "127.0.0.1::8081")
	web, health := hostPort(t, p, name, "80"), hostPort(t, p, name, "8081")

	client := &http.Client{Timeout: 2 * time.Second}
	readyz := func() (int, string) {
		resp, err := client.Get("http://" + health + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer func() { _ = resp.Body.Close() }()            // read below; nothing to report
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096)) // a short body still says why
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	until(t, time.Minute, "/readyz 200", func() (bool, string) {
		code, body := readyz()
		return code == 200, body
	})

	// The download: still running when nginx gets QUIT.
	out := filepath.Join(t.TempDir(), "big")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	curl := exec.CommandContext(ctx, "curl", "-sS", "-o", out, "http://"+web+"/big")
	var curlErr strings.Builder
	curl.Stderr = &curlErr
	if err := curl.Start(); err != nil {
		t.Fatal(err)
	}
	curlDone := make(chan error, 1)
	go func() { curlDone <- curl.Wait() }()
	size := func() int64 {
		fi, err := os.Stat(out)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	until(t, time.Minute, "60 MiB downloaded", func() (bool, string) { return size() >= 60<<20, "" })

	atStop := size()
	start := time.Now()
	stopped := make(chan result, 1)
	go func() { stopped <- p.do(time.Minute, "stop", name) }()
	// /readyz from the moment the stop is asked for, until the first 503.
	var first time.Duration
	var firstAt time.Time
	var why string
	for first == 0 {
		code, body := readyz()
		if code == 503 {
			firstAt = time.Now()
			first, why = firstAt.Sub(start), body
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("/readyz never answered 503 during the stop; last: %d %s", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := <-stopped
	took := time.Since(start)
	if r.err != nil || r.code != 0 {
		t.Fatalf("podman stop: %s", r)
	}
	if err := <-curlDone; err != nil {
		t.Errorf("curl: %v: %s", err, curlErr.String())
	}
	got := size()
	code := exitCode(t, p, name)
	// tend's own view: when its stop began (TERM received) and when it
	// sent nginx QUIT, after the pre-stop's 2 s.
	at, logs := logTimes(t, p, name, "; grace period", "stop: sending SIGQUIT")
	began, quit := at["; grace period"], at["stop: sending SIGQUIT"]
	t.Logf("recipe nginx: downloaded %d of %d bytes (%d when podman stop began); stop->exit %.2f s; /readyz 503 %.3f s after podman stop, %s s after tend's stop began, %s s before QUIT (%q); exit %s",
		got, bigFile, atStop, took.Seconds(), first.Seconds(), gap(began, firstAt), gap(firstAt, quit), why, code)
	if began.IsZero() || quit.IsZero() || !firstAt.Before(quit) {
		t.Errorf("want /readyz 503 while the pre-stop runs, before nginx gets QUIT; log:\n%s", tail(logs, 8000))
	}
	if got != bigFile {
		t.Errorf("the download in flight was cut: %d of %d bytes", got, bigFile)
	}
	if atStop >= bigFile {
		t.Errorf("the download had ended before the stop began: the test proves nothing")
	}
	if !strings.Contains(why, "stop") {
		t.Errorf("/readyz 503 does not name the stop: %q", why)
	}
	if code != "0" {
		t.Errorf("exit %s, want 0; logs:\n%s", code, tail(logs, 8000))
	}
}

// hostPort is the loopback address podman published the container's port on.
func hostPort(t *testing.T, p podman, name, port string) string {
	t.Helper()
	return strings.TrimSpace(p.must(t, 30*time.Second, "port", name, port).stdout)
}
