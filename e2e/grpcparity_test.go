package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// imgGRPC is imgTools with /grpcapp, grpc-go's reference health server
// (grpcapp/). Only the gRPC parity test uses it, so it is built here, on
// first use, rather than by every run's buildImages.
const imgGRPC = "localhost/tend-e2e/tools-grpc:1"

var grpcImage = struct {
	once sync.Once
	err  error
}{}

// buildGRPCImage builds imgGRPC FROM imgTools and imports it into
// containerd, as buildImages does for the others.
func (c *cluster) buildGRPCImage() error {
	grpcImage.once.Do(func() {
		ctxDir := c.path("build", "grpc")
		if err := os.MkdirAll(ctxDir, 0o755); err != nil {
			grpcImage.err = err
			return
		}
		e2eDir, err := os.Getwd()
		if err != nil {
			grpcImage.err = err
			return
		}
		steps := []func() error{
			func() error {
				return run(5*time.Minute, e2eDir, []string{"CGO_ENABLED=0"}, "go", "build", "-buildvcs=false", "-trimpath", "-o", filepath.Join(ctxDir, "grpcapp"), "./grpcapp")
			},
			func() error {
				return os.WriteFile(filepath.Join(ctxDir, "Containerfile"), []byte("FROM "+imgTools+"\nCOPY grpcapp /grpcapp\n"), 0o644)
			},
			func() error {
				return c.podman(ctxDir, "build", "--format", "docker", "-f", "Containerfile", "-t", imgGRPC, ".")
			},
			func() error {
				return c.podman(ctxDir, "save", "--format", "docker-archive", "-o", filepath.Join(ctxDir, "grpc.tar"), imgGRPC)
			},
			func() error {
				return run(2*time.Minute, ctxDir, nil, "ctr", "-a", c.sock, "-n", "k8s.io", "images", "import", filepath.Join(ctxDir, "grpc.tar"))
			},
		}
		for _, s := range steps {
			if grpcImage.err = s(); grpcImage.err != nil {
				return
			}
		}
	})
	return grpcImage.err
}

// grpcCase is one pod of the gRPC parity test: the same liveness probe
// (1 s period, 1 s timeout, failure threshold 2, service "app"), run by
// tend as --live-probe grpc:// or by the kubelet as its own grpc probe.
type grpcCase struct {
	name   string
	port   int
	byTend bool
}

func (g grpcCase) pod() *corev1.Pod {
	// 0.0.0.0: the kubelet dials the pod IP, the node's own address on the
	// host network; tend dials 127.0.0.1. /events is the pod's hostPath
	// (apply), where the test creates the file that turns it NOT_SERVING.
	app := []string{"/grpcapp", "-addr", fmt.Sprintf("0.0.0.0:%d", g.port), "-service", "app", "-down", "/events/down"}
	if !g.byTend {
		ct := newContainer("app", imgGRPC, nil, append([]string{"/tend", "--"}, app...)...)
		service := "app"
		ct.LivenessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: int32(g.port), Service: &service}},
			PeriodSeconds: 1, TimeoutSeconds: 1, FailureThreshold: 2,
		}
		return newPod(g.name, 10, ct)
	}
	return newPod(g.name, 10, newContainer("app", imgGRPC, nil,
		append([]string{"/tend", "--live-probe", fmt.Sprintf("grpc://127.0.0.1:%d/app", g.port),
			"--live-probe-period", "1s", "--live-probe-timeout", "1s", "--live-probe-failure-threshold", "2", "--"}, app...)...))
}

// TestGRPCLivenessParity: grpcapp probed by the kubelet's own grpc
// liveness probe and by tend's --live-probe grpc://, with the same
// settings. Both leave it running while it is SERVING (no restart in 6 s);
// once the test turns both NOT_SERVING at one moment, both containers are
// stopped and restarted, each within 15 s of that moment and within 3 s of
// each other (timestamps have 1 s resolution, and each prober starts its
// 1 s period at its own phase); tend's with exit 75 and the reason.
func TestGRPCLivenessParity(t *testing.T) {
	c := need(t)
	if err := c.buildGRPCImage(); err != nil {
		t.Fatalf("building %s: %v", imgGRPC, err)
	}
	cases := []grpcCase{{"grpc-kubelet", 18151, false}, {"grpc-tend", 18152, true}}
	events := make([]string, len(cases))
	for i, g := range cases {
		portsFree(t, g.port)
		events[i] = c.apply(t, g.pod())
	}
	// SERVING: both run, and stay up, through several probe periods.
	var since time.Time
	err := poll(2*time.Minute, func() (bool, error) {
		for _, g := range cases {
			p, err := c.pod(g.name)
			if err != nil || p == nil {
				return false, nil
			}
			st := container(p, "app")
			if st.RestartCount > 0 {
				return false, fmt.Errorf("%s restarted while SERVING\n%s", g.name, describe(p))
			}
			if st.State.Running == nil {
				since = time.Time{}
				return false, nil
			}
		}
		if since.IsZero() {
			since = time.Now()
		}
		return time.Since(since) > 6*time.Second, nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, c.diag("grpc-"))
	}
	flip := time.Now()
	for _, dir := range events {
		if err := os.WriteFile(filepath.Join(dir, "down"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ends := make([]time.Time, len(cases))
	for i, g := range cases {
		p := c.waitPod(t, g.name, "restarted after NOT_SERVING", 2*time.Minute, func(p *corev1.Pod) bool {
			st := container(p, "app")
			return st.RestartCount >= 1 && st.LastTerminationState.Terminated != nil
		})
		last := container(p, "app").LastTerminationState.Terminated
		ends[i] = last.FinishedAt.Time
		after := ends[i].Sub(flip)
		if after < -time.Second || after > 15*time.Second {
			t.Errorf("%s: stopped %s after it turned NOT_SERVING; want within 15 s\n%s", g.name, after, describe(p))
		}
		want := fmt.Sprintf(`liveness probe failed 2 times in a row: grpc://127.0.0.1:%d/app: service unhealthy (responded with "NOT_SERVING")`, g.port)
		if g.byTend && (last.ExitCode != 75 || !strings.Contains(last.Message, want)) {
			t.Errorf("%s: want exit 75 and %q, got exit %d %q", g.name, want, last.ExitCode, last.Message)
		}
		t.Logf("%s: stopped %s after the flip (exit %d)", g.name, after, last.ExitCode)
	}
	if d := ends[0].Sub(ends[1]).Abs(); d > 3*time.Second {
		t.Errorf("the kubelet's probe and tend's stopped the app %s apart; want within 3 s", d)
	}
}
