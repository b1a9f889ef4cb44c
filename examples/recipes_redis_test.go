//go:build recipes

package examples

import (
	"strings"
	"testing"
	"time"
)

// TestRecipeRedis: the README's Redis recipe. A server frozen with
// `kill -STOP` fails its liveness probe; tend stops it with TERM and then
// SIGCONT, so Redis shuts down cleanly at once (its "ready to exit" line)
// instead of waiting for SIGKILL at the grace period, and tend exits 75.
func TestRecipeRedis(t *testing.T) {
	p, image, name := recipeImage(t, "redis")
	recipeRun(t, p, name, image)
	var pid string
	until(t, time.Minute, "redis-cli info server", func() (bool, string) {
		r := p.do(30*time.Second, "exec", name, "redis-cli", "info", "server")
		for _, line := range strings.Split(r.stdout, "\n") {
			if v, ok := strings.CutPrefix(line, "process_id:"); ok {
				pid = strings.TrimSpace(v)
			}
		}
		return pid != "", r.String()
	})
	p.must(t, 30*time.Second, "exec", name, "sh", "-c", "kill -STOP "+pid)
	frozen := time.Now()
	w := p.must(t, 2*time.Minute, "wait", name)
	took := time.Since(frozen)
	code := strings.TrimSpace(w.stdout)

	// From tend's "stop: …; grace period" line (a warning: the liveness failure) to
	// Redis's last one, by podman's timestamps.
	at, all := logTimes(t, p, name, "; grace period", "ready to exit")
	stopAt, byeAt := at["; grace period"], at["ready to exit"]
	t.Logf("recipe redis: freeze->exit %.2f s; freeze->tend's stop %s s; stop->redis exit %s s; exit %s",
		took.Seconds(), gap(frozen, stopAt), gap(stopAt, byeAt), code)
	if code != "75" || stopAt.IsZero() || byeAt.IsZero() || strings.Contains(all, "sending SIGKILL to the app") {
		t.Fatalf("want tend's stop, then Redis's clean exit (no SIGKILL), then exit 75; got exit %s; logs:\n%s", code, tail(all, 8000))
	}
	if d := byeAt.Sub(stopAt); d > 6*time.Second {
		t.Errorf("Redis took %s from the stop to its exit: not inside the 6 s grace period", d)
	}
}
