//go:build recipes

package examples

import (
	"strings"
	"testing"
	"time"
)

// TestRecipePostgreSQL: the README's PostgreSQL recipe. The pre-start
// (root) made the data directory for postgres, the post-start (as
// postgres) created the database `app`, the server runs as postgres, the
// stop is the fast shutdown that INT asks for and exits 0, and a row
// written before `podman stop` is there after `podman start`.
func TestRecipePostgreSQL(t *testing.T) {
	p, image, name := recipeImage(t, "postgresql")
	recipeRun(t, p, name, image)
	ready := func() {
		t.Helper()
		// initdb, the server's start and the post-start: /readyz is 200
		// only once the post-start has succeeded and pg_isready passes.
		until(t, 2*time.Minute, "/readyz 200", func() (bool, string) {
			r := p.do(30*time.Second, "exec", name, "/tend", "--check", "http://127.0.0.1:8081/readyz")
			return r.err == nil && r.code == 0, r.String()
		})
	}
	psql := func(sql string) string {
		t.Helper()
		return strings.TrimSpace(p.must(t, time.Minute, "exec", "-u", "postgres", name, "psql", "-d", "app", "-v", "ON_ERROR_STOP=1", "-Atc", sql).stdout)
	}
	stop := func(what string) time.Duration {
		t.Helper()
		r := p.must(t, time.Minute, "stop", name)
		if code := exitCode(t, p, name); code != "0" {
			logs := p.must(t, 30*time.Second, "logs", name)
			t.Fatalf("%s: exit %s, want 0; logs:\n%s%s", what, code, logs.stdout, tail(logs.stderr, 8000))
		}
		return r.took
	}
	ready()

	if owner := psql("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'app'"); owner != "postgres" {
		t.Errorf("the post-start's database app belongs to %q, want postgres (the post-start runs as --user)", owner)
	}
	if got := strings.TrimSpace(p.must(t, time.Minute, "exec", name, "stat", "-c", "%U %a", "/var/lib/postgresql/data").stdout); got != "postgres 700" {
		t.Errorf("the data directory the pre-start made: %q, want postgres 700", got)
	}
	// The postmaster's PID is the first line of postmaster.pid; its real,
	// effective, saved and file-system uids are postgres's.
	uid := strings.TrimSpace(p.must(t, time.Minute, "exec", name, "id", "-u", "postgres").stdout)
	status := p.must(t, time.Minute, "exec", name, "sh", "-c", `cat /proc/$(head -n 1 "$PGDATA/postmaster.pid")/status`).stdout
	var uids string
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			uids = strings.Join(strings.Fields(v), " ")
		}
	}
	if want := strings.Repeat(uid+" ", 3) + uid; uid == "0" || uids != want {
		t.Errorf("the server's uids are %q, want postgres's (%s)", uids, want)
	}

	psql("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('written before podman stop')")
	first := stop("the first stop")
	logs := p.must(t, 30*time.Second, "logs", name)
	if !strings.Contains(logs.stdout+logs.stderr, "received fast shutdown request") {
		t.Errorf("the server did not get INT's fast shutdown; logs:\n%s%s", logs.stdout, tail(logs.stderr, 8000))
	}

	p.must(t, time.Minute, "start", name)
	ready()
	if got := psql("SELECT v FROM kept"); got != "written before podman stop" {
		t.Errorf("after the restart, the row is %q", got)
	}
	second := stop("the stop after the restart")
	t.Logf("recipe postgresql: stop->exit %.2f s, after restart %.2f s; exit 0, 0; db app owner postgres; server uids %s", first.Seconds(), second.Seconds(), uids)
}
