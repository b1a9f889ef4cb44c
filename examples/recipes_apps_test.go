//go:build recipes

package examples

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The gunicorn and Node recipes, each run twice: with tend, as the README
// shows, and with tini-static (the host's, mounted) as the init, for the
// figures side by side. Only tend's run is asserted; tini's is logged.

// gunicornApp is the WSGI app the recipe's CMD names: it answers after the
// seconds its query string gives, and says when a request begins.
var gunicornApp = []string{
	`RUN mkdir -p /srv && printf '%s\n' 'import sys, time' 'def app(environ, start_response):' ` +
		`'    print("begin", flush=True)' '    time.sleep(float(environ.get("QUERY_STRING") or 0))' ` +
		`'    start_response("200 OK", [("Content-Type", "text/plain")])' '    return [b"done\n"]' >/srv/app.py`,
}

// nodeServer answers after ?s seconds, and on TERM stops accepting and
// exits once the requests in flight are done (server.close).
var nodeServer = []string{
	`RUN mkdir -p /srv && printf '%s\n' 'const http = require("http");' ` +
		`'const server = http.createServer((req, res) => { console.log("begin"); const s = Number(new URL(req.url, "http://x").searchParams.get("s") || 0); setTimeout(() => res.end("done\n"), s * 1000); });' ` +
		`'server.listen(3000, () => console.log("listening"));' ` +
		`'process.on("SIGTERM", () => { console.log("closing"); server.close(() => process.exit(0)); });' >/srv/server.js`,
}

// runWith starts the recipe's container as recipeRun does; for the peer's
// run ("tini") with tini-static, the host's, mounted and made the
// ENTRYPOINT, and cmd given again (a new ENTRYPOINT drops the image's CMD).
func runWith(t *testing.T, p podman, init, name, image string, extra []string, cmd ...string) {
	t.Helper()
	if init == "tend" {
		recipeRun(t, p, name, image, extra...)
		return
	}
	t.Cleanup(func() {
		if t.Failed() {
			r := p.do(30*time.Second, "logs", name)
			t.Logf("logs of %s:\n%s%s", name, tail(r.stdout, 8000), tail(r.stderr, 8000))
		}
		_ = p.do(time.Minute, "rm", "-f", "-t", "0", name) // best effort: the name is unique
	})
	args := append([]string{"run", "-d", "--name", name, "--no-healthcheck"}, runFlags[2:]...)
	args = append(args, extra...)
	args = append(args, "-v", "/usr/bin/tini-static:/tini:ro", "--entrypoint", "/tini", image, "--")
	p.must(t, 2*time.Minute, append(args, cmd...)...)
}

// stopDuringRequest starts curl on url, waits for the app's "begin" line,
// runs podman stop (its default 10 s), and reports curl's body, the stop's
// duration and the exit code.
func stopDuringRequest(t *testing.T, p podman, name, url string) (body string, took time.Duration, code string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	curl := exec.CommandContext(ctx, "curl", "-sS", url)
	var out, errOut strings.Builder
	curl.Stdout, curl.Stderr = &out, &errOut
	if err := curl.Start(); err != nil {
		t.Fatal(err)
	}
	until(t, time.Minute, "the request began", func() (bool, string) {
		r := p.do(30*time.Second, "logs", name)
		return strings.Contains(r.stdout+r.stderr, "begin"), ""
	})
	start := time.Now()
	r := p.do(time.Minute, "stop", name)
	took = time.Since(start)
	if r.err != nil || r.code != 0 {
		t.Fatalf("podman stop: %s", r)
	}
	_ = curl.Wait() // a cut request is the figure, not an error here
	return strings.TrimSpace(out.String() + errOut.String()), took, exitCode(t, p, name)
}

// TestRecipeGunicorn: TTIN adds a worker and TTOU removes one; an 8 s
// request in flight when podman stop (10 s) begins completes and the
// container exits 0 (tend's old 6 s default cut it). A 10 s request races
// podman's own SIGKILL at 10 s, under tini as under tend: on this loaded
// machine both delivered the body and exited 137.
func TestRecipeGunicorn(t *testing.T) {
	p, image, name := recipeImage(t, "gunicorn", gunicornApp...)
	cmd := []string{"python3", "-m", "gunicorn", "--bind", "0.0.0.0:8000", "--workers", "2", "--chdir", "/srv", "app:app"}
	for _, init := range []string{"tend", "tini"} {
		t.Run(init, func(t *testing.T) {
			run := name + "-" + init
			runWith(t, p, init, run, image, []string{"-e", "TEND_VERBOSITY=3", "-p", "127.0.0.1::8000"}, cmd...)
			web := hostPort(t, p, run, "8000")
			logs := func() string { r := p.do(30*time.Second, "logs", run); return r.stdout + r.stderr }
			until(t, time.Minute, "two workers", func() (bool, string) {
				l := logs()
				return strings.Count(l, "Booting worker") >= 2, tail(l, 2000)
			})
			p.must(t, 30*time.Second, "kill", "-s", "TTIN", run)
			ttin := "no"
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				if l := logs(); strings.Count(l, "Booting worker") >= 3 {
					ttin = "yes"
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			p.must(t, 30*time.Second, "kill", "-s", "TTOU", run)
			ttou := "no"
			deadline = time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				if l := logs(); strings.Contains(l, "Handling signal: ttou") {
					ttou = "yes"
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			body, took, code := stopDuringRequest(t, p, run, "http://"+web+"/?8")
			t.Logf("recipe gunicorn under %s: TTIN added a worker: %s; TTOU handled: %s; 8 s request: %q; podman stop took %.2f s; exit %s",
				init, ttin, ttou, body, took.Seconds(), code)
			if init == "tend" && (ttin != "yes" || ttou != "yes" || body != "done" || code != "0") {
				t.Errorf("want TTIN and TTOU acted on, the request done, exit 0; logs:\n%s", tail(logs(), 8000))
			}
		})
	}
}

// TestRecipeNode: node behind `sh -c`; a 5 s request in flight when
// podman stop begins completes; tend exits with the shell's 143.
func TestRecipeNode(t *testing.T) {
	p, image, name := recipeImage(t, "node", nodeServer...)
	for _, init := range []string{"tend", "tini"} {
		t.Run(init, func(t *testing.T) {
			run := name + "-" + init
			runWith(t, p, init, run, image, []string{"-e", "TEND_VERBOSITY=2", "-p", "127.0.0.1::3000"}, "sh", "-c", "node /srv/server.js")
			web := hostPort(t, p, run, "3000")
			until(t, time.Minute, "node listening", func() (bool, string) {
				r := p.do(30*time.Second, "logs", run)
				return strings.Contains(r.stdout+r.stderr, "listening"), r.stderr
			})
			body, took, code := stopDuringRequest(t, p, run, "http://"+web+"/?s=5")
			r := p.do(30*time.Second, "logs", run)
			t.Logf("recipe node under %s: 5 s request: %q; podman stop took %.2f s; exit %s", init, body, took.Seconds(), code)
			if init == "tend" && (body != "done" || code != "143" || !strings.Contains(r.stdout+r.stderr, "its child node")) {
				t.Errorf("want the request done, exit 143 and the wrapper named; logs:\n%s", tail(r.stdout+r.stderr, 8000))
			}
		})
	}
}
