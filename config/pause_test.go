package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestPauseOnlyWhenAsked: no program is pause mode only with --pause,
// TEND_PAUSE or probes (the sidecar health responder); otherwise, as an
// empty CMD by mistake, usage and exit 1. Hooks alone do not imply it.
func TestPauseOnlyWhenAsked(t *testing.T) {
	for _, c := range []struct {
		args  []string
		env   []string
		pause bool
		err   string
	}{
		{args: nil, err: "no program given"},
		{args: []string{"--"}, err: "no program given"},
		{args: []string{"--pre-start", "true", "--post-stop", "true"}, err: "no program given"},
		{args: []string{"--health-addr", "127.0.0.1:0"}, err: "no program given"},
		{args: []string{"--wait-for", "tcp://db:5432"}, err: "no program given"},
		{args: []string{"--pause"}, pause: true},
		{env: []string{"TEND_PAUSE", "1"}, pause: true},
		{args: []string{"--pause", "--pre-start", "true"}, pause: true},
		{args: []string{"--live-probe", "tcp://127.0.0.1:6379"}, pause: true},
		{args: []string{"--pause", "app"}, err: "--pause runs no program"},
		{args: []string{"app"}},
	} {
		cfg, _, err := Parse(append([]string{"tend"}, c.args...), envOf(c.env...), "v0", io.Discard)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %q: error %v, want %q", c.args, c.env, err, c.err)
			}
		case err != nil:
			t.Errorf("%q %q: %v", c.args, c.env, err)
		case cfg.Pause != c.pause:
			t.Errorf("%q %q: Pause %v, want %v", c.args, c.env, cfg.Pause, c.pause)
		}
	}
}

// TestWaitFor: --wait-for takes any probe spec, named or not; settings
// come from the probe timeout or a JSON Probe's own; --wait-timeout takes
// 0 (no bound).
func TestWaitFor(t *testing.T) {
	cfg, _, err := Parse([]string{"tend", "--wait-for", "db=tcp://db:5432", "--wait-for", `{"httpGet":{"path":"/","port":8080},"timeoutSeconds":3}`,
		"--wait-timeout", "0", "--probe-timeout", "2s", "app"}, envOf("TEND_WAIT_FOR", "ignored=tcp://x:1"), "v0", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.WaitFor) != 2 || cfg.WaitTimeout != 0 {
		t.Fatalf("waits %+v, timeout %s", cfg.WaitFor, cfg.WaitTimeout)
	}
	if w := cfg.WaitFor[0]; w.Name != "db" || w.Spec != "tcp://db:5432" || w.Timeout != 2*time.Second {
		t.Fatalf("db: %+v", w)
	}
	if w := cfg.WaitFor[1]; w.Name != w.Spec || w.Timeout != 3*time.Second {
		t.Fatalf("unnamed JSON: %+v", w)
	}
	cfg, _, err = Parse([]string{"tend", "app"}, envOf("TEND_WAIT_FOR", "a=tcp://a:1\nb=tcp://b:2"), "v0", io.Discard)
	if err != nil || len(cfg.WaitFor) != 2 || cfg.WaitFor[1].Name != "b" || cfg.WaitTimeout != time.Minute {
		t.Fatalf("TEND_WAIT_FOR, one per line: %v %+v %s", err, cfg, cfg.WaitTimeout)
	}
	for _, bad := range [][]string{
		{"--wait-for", "tcp://nohost", "app"},
		{"--wait-for", "db=tcp://a:1", "--wait-for", "db=tcp://b:1", "app"},
		{"--wait-timeout", "-1s", "app"},
		{"--wait-timeout", "10", "app"},
	} {
		if _, _, err := Parse(append([]string{"tend"}, bad...), envOf(), "v0", io.Discard); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
