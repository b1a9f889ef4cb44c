//go:build recipes

package examples

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/kubeletvol"
)

// reloadFile is the download in flight during the reload: 100 MiB at
// nginx's limit_rate of 20 MiB/s, so about 5 s.
const reloadFile = 100 << 20

// TestRecipeNginxReload: the README's nginx recipe, with its
// --reload-on /etc/nginx/conf.d, and conf.d a directory laid out as the
// kubelet lays out a ConfigMap volume (internal/kubeletvol replays its
// atomic writer; nginx's "include conf.d/*.conf" does not match the
// "..data" and "..TIMESTAMP" entries). A ConfigMap update, swapped in as
// the kubelet swaps it, changes what nginx serves (a server on 8082
// answers v1, then v2), through tend's HUP and nginx's graceful reload:
// a download on 80 in flight across the reload completes in full, and
// requests to 8082 on new connections all the while fail none.
func TestRecipeNginxReload(t *testing.T) {
	p, image, name := recipeImage(t, "nginx", "RUN truncate -s 100M /var/www/html/big")
	conf := t.TempDir()
	// The container's root reads it; t.TempDir's 0700 is the host's.
	if err := os.Chmod(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	files := func(v string) map[string]string {
		return map[string]string{
			"rate.conf":  "limit_rate 20m;\n",
			"reply.conf": "server {\n  listen 8082;\n  location / { return 200 \"" + v + "\\n\"; }\n}\n",
		}
	}
	if err := kubeletvol.Write(conf, files("v1")); err != nil {
		t.Fatal(err)
	}
	recipeRun(t, p, name, image, "-e", "TEND_VERBOSITY=2", "-v", conf+":/etc/nginx/conf.d:ro",
		"-p", "127.0.0.1::80", "-p", "127.0.0.1::8082")
	web, reply := hostPort(t, p, name, "80"), hostPort(t, p, name, "8082")

	// One request a connection, so each one goes through accept again.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	ask := func() (string, error) {
		resp, err := client.Get("http://" + reply + "/")
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }() // read below; nothing to report
		b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if err != nil || resp.StatusCode != 200 {
			return "", fmt.Errorf("%d %q %v", resp.StatusCode, b, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	until(t, time.Minute, "8082 answers v1", func() (bool, string) {
		got, err := ask()
		return got == "v1", fmt.Sprint(got, err)
	})

	// The download in flight.
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
	until(t, time.Minute, "10 MiB downloaded", func() (bool, string) { return size() >= 10<<20, "" })

	// Requests to 8082 all through the reload.
	var (
		mu       sync.Mutex
		asked    int
		failures []string
	)
	stopAsking := make(chan struct{})
	asking := make(chan struct{})
	go func() {
		defer close(asking)
		for {
			select {
			case <-stopAsking:
				return
			default:
			}
			_, err := ask()
			mu.Lock()
			asked++
			if err != nil {
				failures = append(failures, err.Error())
			}
			mu.Unlock()
		}
	}()

	swapped := time.Now()
	if err := kubeletvol.Write(conf, files("v2")); err != nil {
		t.Fatal(err)
	}
	var sawV2 time.Time
	until(t, 30*time.Second, "8082 answers v2", func() (bool, string) {
		got, err := ask()
		sawV2 = time.Now()
		return got == "v2", fmt.Sprint(got, err)
	})
	atV2 := size()
	close(stopAsking)
	<-asking
	if err := <-curlDone; err != nil {
		t.Errorf("curl: %v: %s", err, curlErr.String())
	}
	got := size()
	at, logs := logTimes(t, p, name, "reload: ", "sending SIGHUP")
	t.Logf("recipe nginx reload: ConfigMap-style swap to nginx's v2 %.3f s (tend's log: %s s to its reload line); download %d of %d bytes (%d when v2 was served); %d requests to 8082 during the reload, %d failed",
		sawV2.Sub(swapped).Seconds(), gap(swapped, at["sending SIGHUP"]), got, reloadFile, atV2, asked, len(failures))
	if at["sending SIGHUP"].IsZero() || !strings.Contains(logs, "reply.conf") {
		t.Errorf("tend's log has no reload line naming reply.conf:\n%s", tail(logs, 8000))
	}
	if got != reloadFile {
		t.Errorf("the download in flight across the reload was cut: %d of %d bytes", got, reloadFile)
	}
	if atV2 >= reloadFile {
		t.Errorf("the download had ended before nginx served v2: the test proves nothing")
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d requests failed during the reload: %q", len(failures), asked, failures)
	}
	if n := strings.Count(logs, "sending SIGHUP"); n != 1 {
		t.Errorf("one swap, %d reloads:\n%s", n, tail(logs, 8000))
	}
}
