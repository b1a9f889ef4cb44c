package examples

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const sidecarManifest = "kubernetes/sidecar.yaml"

// TestSidecarManifest checks the sidecar example against the real API
// types, and that its parts agree: the app container's probes ask tend's
// port, and tend, in pause mode, probes the app's port on loopback.
func TestSidecarManifest(t *testing.T) {
	b, err := os.ReadFile(sidecarManifest)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := loadPod(b)
	if err != nil {
		t.Fatalf("%s does not match the Kubernetes API: %v", sidecarManifest, err)
	}
	if len(pod.Spec.Containers) != 2 {
		t.Fatalf("want an app and a tend sidecar, got %d containers", len(pod.Spec.Containers))
	}
	app, tend := pod.Spec.Containers[0], pod.Spec.Containers[1]
	if len(tend.Command) != 1 || tend.Command[0] != "/tend" {
		t.Fatalf("the sidecar must run [/tend] with flags only (pause mode), got %q", tend.Command)
	}
	flags := map[string][]string{}
	for _, a := range tend.Args {
		k, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !ok {
			t.Fatalf("sidecar arg %q: want --flag=value, and no program", a)
		}
		flags[k] = append(flags[k], v)
	}
	_, healthPort, err := net.SplitHostPort(first(flags["health-addr"]))
	if err != nil {
		t.Fatalf("--health-addr: %v", err)
	}
	for _, p := range []*corev1.Probe{app.LivenessProbe, app.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || strconv.Itoa(p.HTTPGet.Port.IntValue()) != healthPort {
			t.Fatalf("the app's probes must ask tend's port %s: %+v", healthPort, p)
		}
	}
	if app.LivenessProbe.HTTPGet.Path != "/livez" || app.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Fatal("liveness must ask /livez and readiness /readyz")
	}
	appPort := strconv.Itoa(int(app.Ports[0].ContainerPort))
	for _, kind := range []string{"ready-probe", "live-probe"} {
		v := first(flags[kind])
		if !strings.HasSuffix(v, "tcp://127.0.0.1:"+appPort) {
			t.Errorf("--%s %q should probe the app's port %s on loopback", kind, v, appPort)
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
