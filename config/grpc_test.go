package config

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

// TestParseCheckGRPC: --check grpc:// is read when the flags are, so a
// typo is a usage error; it is plaintext, as the kubelet's grpc probe.
func TestParseCheckGRPC(t *testing.T) {
	parse := func(args ...string) (*Healthcheck, error) {
		_, c, err := Parse(append([]string{"tend"}, args...), envOf(), testVersion, &bytes.Buffer{})
		return c, err
	}
	c, err := parse("--check", "grpc://127.0.0.1:50051/grpc.health.v1.Health", "--check-timeout", "2s")
	if err != nil || c == nil || c.GRPC == nil || *c.GRPC != (probe.GRPC{Addr: "127.0.0.1:50051", Service: "grpc.health.v1.Health"}) || c.Timeout != 2*time.Second {
		t.Fatalf("--check grpc://: %+v, %v", c, err)
	}
	if c, err := parse("--check", "http://127.0.0.1:1/"); err != nil || c.GRPC != nil {
		t.Errorf("--check http://: %+v, %v", c, err)
	}
	for _, args := range [][]string{
		{"--check", "grpc://127.0.0.1"},
		{"--check", "grpc://127.0.0.1:0"},
		{"--check", "grpc://h:1/s?x"},
		{"--check", "grpc://h:1", "--check-ca", "/etc/ca.pem"},
		{"--check", "grpcs://unix:rel.sock"},
	} {
		if _, err := parse(args...); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want a one-line error", args, err)
		}
	}
}

// TestParseProbeGracePeriod: a JSON liveness or startup probe's own
// terminationGracePeriodSeconds reaches its Healthcheck; on a readiness probe it
// is an error, as validateReadinessProbe makes it.
func TestParseProbeGracePeriod(t *testing.T) {
	const j = `{"grpc":{"port":50051},"terminationGracePeriodSeconds":4}`
	for _, flag := range []string{"--live-probe", "--startup-probe"} {
		cfg := mustParse(t, envOf(), flag, j, "true")
		if len(cfg.Checks) != 1 || cfg.Checks[0].GracePeriod != 4*time.Second {
			t.Errorf("%s: checks %+v", flag, cfg.Checks)
		}
	}
	cfg := mustParse(t, envOf(), "--live-probe", `{"grpc":{"port":50051}}`, "true")
	if len(cfg.Checks) != 1 || cfg.Checks[0].GracePeriod != 0 || cfg.Checks[0].Kind != plan.ProbeLive {
		t.Errorf("no terminationGracePeriodSeconds: checks %+v", cfg.Checks)
	}
	_, _, err := Parse([]string{"tend", "--ready-probe", j, "true"}, envOf(), testVersion, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "readiness") {
		t.Errorf("readiness probe with terminationGracePeriodSeconds: %v", err)
	}
}

// TestParseCheckGRPCS: --check grpcs:// with and without --check-ca, and
// over a unix socket.
func TestParseCheckGRPCS(t *testing.T) {
	for _, c := range []struct {
		args []string
		want probe.GRPC
		ca   string
	}{
		{[]string{"--check", "grpcs://127.0.0.1:50051/svc", "--check-ca", "/ca.pem"},
			probe.GRPC{Addr: "127.0.0.1:50051", Service: "svc", Secure: true}, "/ca.pem"},
		{[]string{"--check", "grpcs://db:1"}, probe.GRPC{Addr: "db:1", Secure: true}, ""},
		{[]string{"--check", "grpc://unix:/run/g.sock:/svc"}, probe.GRPC{Addr: "unix:/run/g.sock", Service: "svc"}, ""},
	} {
		_, h, err := Parse(append([]string{"tend"}, c.args...), envOf(), testVersion, &bytes.Buffer{})
		if err != nil || h == nil || h.GRPC == nil || *h.GRPC != c.want || h.CA != c.ca {
			t.Errorf("%q: %+v, %v", c.args, h, err)
			continue
		}
	}
}
