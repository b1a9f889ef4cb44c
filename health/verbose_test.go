package health

import (
	"strings"
	"testing"
	"time"
)

func TestVerboseEndpoints(t *testing.T) {
	s := startServer(t)
	s.Publish(&Status{Live: true, Ready: false, ReadyReason: "not ready: readiness check api failing: status 503", Published: time.Now(),
		Checks: []CheckStatus{
			{Name: "boot", Kind: "startup", Up: true},
			{Name: "db", Kind: "ready", Up: true},
			{Name: "api", Kind: "ready", Up: false, Detail: "status 503"},
			{Name: "self", Kind: "live", Up: true},
		}})
	code, body := get(t, s, "GET", "/readyz?verbose")
	want := "[+]boot ok\n[+]db ok\n[-]api failed: status 503\nreadyz check failed\n"
	if code != 503 || body != want {
		t.Fatalf("/readyz?verbose = %d %q, want 503 %q", code, body, want)
	}
	code, body = get(t, s, "GET", "/livez?verbose=1")
	if want := "[+]boot ok\n[+]self ok\nlivez check passed\n"; code != 200 || body != want {
		t.Fatalf("/livez?verbose = %d %q, want 200 %q", code, body, want)
	}
	if code, body := get(t, s, "GET", "/readyz"); code != 503 || !strings.Contains(body, "api failing") {
		t.Fatalf("/readyz = %d %q", code, body)
	}
	_, m := get(t, s, "GET", "/metrics")
	for _, line := range []string{`tend_probe_up{probe="api",kind="ready"} 0`, `tend_probe_up{probe="db",kind="ready"} 1`, `tend_probe_up{probe="boot",kind="startup"} 1`} {
		if !strings.Contains(m, line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	// A reason no check explains still shows.
	s.Publish(&Status{Live: true, ReadyReason: "not ready: post-start running", Published: time.Now()})
	if _, body := get(t, s, "GET", "/readyz?verbose"); body != "[-]lifecycle failed: not ready: post-start running\nreadyz check failed\n" {
		t.Fatalf("/readyz?verbose = %q", body)
	}
}
