// Package examples checks the shipped examples, so that they cannot drift
// from tend: the Kubernetes manifest against the real API types (here), and
// the Dockerfiles with a real container runtime (image_test.go).
package examples

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/tend-init/tend/plan"
)

const podManifest = "kubernetes/pod.yaml"

// loadPod decodes a manifest strictly: an unknown or misspelt field, or a
// duplicate key, is an error rather than silently dropped.
func loadPod(b []byte) (corev1.Pod, error) {
	var pod corev1.Pod
	err := yaml.UnmarshalStrict(b, &pod)
	return pod, err
}

func TestPodManifest(t *testing.T) {
	b, err := os.ReadFile(podManifest)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := loadPod(b)
	if err != nil {
		t.Fatalf("%s does not match the Kubernetes API: %v", podManifest, err)
	}
	if pod.APIVersion != "v1" || pod.Kind != "Pod" || len(pod.Spec.Containers) != 1 {
		t.Fatalf("want one v1 Pod with one container, got %s %s with %d", pod.APIVersion, pod.Kind, len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if len(c.Command) != 2 || c.Command[0] != "/tend" || c.Command[1] != "--" {
		t.Errorf("tend must be the container's command, as [/tend --]: %q", c.Command)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}

	// Both probes ask tend, on the port tend's health server listens on,
	// which the kubelet can reach only off loopback.
	host, port, err := net.SplitHostPort(env["TEND_HEALTH_ADDR"])
	if err != nil {
		t.Fatalf("TEND_HEALTH_ADDR %q: %v", env["TEND_HEALTH_ADDR"], err)
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		t.Errorf("TEND_HEALTH_ADDR %q is on loopback, which kubelet probes cannot reach", env["TEND_HEALTH_ADDR"])
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{
		{"livenessProbe", c.LivenessProbe, "/livez"},
		{"readinessProbe", c.ReadinessProbe, "/readyz"},
	} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s must be an httpGet probe: %+v", p.name, p.probe)
			continue
		}
		if p.probe.HTTPGet.Path != p.path {
			t.Errorf("%s asks %q, want tend's %s", p.name, p.probe.HTTPGet.Path, p.path)
		}
		if got := containerPort(c, p.probe.HTTPGet.Port.String()); strconv.Itoa(got) != port {
			t.Errorf("%s port %s is %d, but tend listens on %s", p.name, p.probe.HTTPGet.Port.String(), got, port)
		}
	}

	// The pre-stop is tend's, in exec form, and not a kubelet hook.
	var hook []string
	if err := json.Unmarshal([]byte(env["TEND_PRE_STOP"]), &hook); err != nil || len(hook) == 0 {
		t.Errorf("TEND_PRE_STOP %q should be an exec-form JSON array: %v", env["TEND_PRE_STOP"], err)
	}
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		t.Errorf("the pre-stop belongs in TEND_PRE_STOP, not lifecycle.preStop: %+v", c.Lifecycle.PreStop)
	}

	// The kubelet's grace period covers tend's grace period and drain,
	// with a small margin: shorter, and the kubelet's SIGKILL cuts tend's
	// sequence; much longer, and a stuck pod lingers for nothing.
	grace, err1 := time.ParseDuration(env["TEND_GRACE_PERIOD"])
	drain, err2 := time.ParseDuration(env["TEND_DRAIN_TIMEOUT"])
	if err1 != nil || err2 != nil {
		t.Fatalf("TEND_GRACE_PERIOD and TEND_DRAIN_TIMEOUT must be set: %v; %v", err1, err2)
	}
	if pod.Spec.TerminationGracePeriodSeconds == nil {
		t.Fatal("terminationGracePeriodSeconds must be set, to match TEND_GRACE_PERIOD")
	}
	// tend's longest stop adds the minimal shutdown window after a pre-stop
	// that used up the grace period.
	window := plan.Default().MinShutdownWindow
	k8s := time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	if k8s < grace+window+drain || k8s > grace+window+drain+5*time.Second {
		t.Errorf("terminationGracePeriodSeconds is %s; want TEND_GRACE_PERIOD %s + the %s shutdown window + TEND_DRAIN_TIMEOUT %s plus at most 5s", k8s, grace, window, drain)
	}
}

// containerPort resolves a probe's port, by number or by name.
func containerPort(c corev1.Container, port string) int {
	if n, err := strconv.Atoi(port); err == nil {
		return n
	}
	for _, p := range c.Ports {
		if p.Name == port {
			return int(p.ContainerPort)
		}
	}
	return 0
}

// TestPodManifestIsStrict shows that the decoding above catches what it is
// for: a misspelt field fails instead of vanishing, probe and all.
func TestPodManifestIsStrict(t *testing.T) {
	b, err := os.ReadFile(podManifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, typo := range [][2]string{
		{"livenessProbe:", "livenesProbe:"},
		{"terminationGracePeriodSeconds:", "terminationGracePeriod:"},
	} {
		bad := bytes.Replace(b, []byte(typo[0]), []byte(typo[1]), 1)
		if bytes.Equal(bad, b) {
			t.Fatalf("%s has no %q to misspell", podManifest, typo[0])
		}
		if _, err := loadPod(bad); err == nil {
			t.Errorf("misspelling %q as %q was accepted", typo[0], typo[1])
		}
	}
}
