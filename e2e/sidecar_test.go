package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestSidecar is check 5: examples/kubernetes/sidecar.yaml, with kapp's
// TCP mode standing in for Redis on 6379 (its port opens and closes with a
// file the test controls) and tend's own image as the sidecar, in pause
// mode with the manifest's command and flags. The app container's
// kubelet probes ask the tend sidecar, so the pod is unready while the
// port is closed, ready once it opens, unready again when it closes, and
// then the kubelet restarts the app container (tend's liveness check
// fails) while the sidecar keeps running.
func TestSidecar(t *testing.T) {
	c := need(t)
	portsFree(t, 6379, 8081)
	pod := loadManifest(t, "../examples/kubernetes/sidecar.yaml")
	if len(pod.Spec.Containers) != 2 || pod.Spec.Containers[0].Name != "app" || pod.Spec.Containers[1].Name != "health" {
		t.Fatalf("sidecar.yaml changed shape: %+v", pod.Spec.Containers)
	}
	pod.Spec.HostNetwork = true
	app, health := &pod.Spec.Containers[0], &pod.Spec.Containers[1]
	app.Image, app.ImagePullPolicy = imgTools, corev1.PullNever
	app.Command = []string{"/app", "tcp", "--port", "6379", "--open-file", "/events/open"}
	health.Image, health.ImagePullPolicy = imgTend, corev1.PullNever
	events := c.apply(t, pod)
	open := filepath.Join(events, "open")

	// Port closed: tend's readiness check fails, and the kubelet's
	// readiness probe of the app container, which asks tend, fails too.
	c.waitPod(t, pod.Name, "both containers running", 2*time.Minute, func(p *corev1.Pod) bool {
		return container(p, "app").State.Running != nil && container(p, "health").State.Running != nil
	})
	if err := poll(30*time.Second, func() (bool, error) {
		code, body, err := get("http://127.0.0.1:8081/readyz?verbose")
		return err == nil && code == 503 && strings.Contains(body, "[-]redis"), nil
	}); err != nil {
		t.Fatalf("tend's /readyz never reported the closed port: %v\n%s", err, c.diag(pod.Name))
	}
	full := "default/" + pod.Name + "-" + node
	c.waitLog(t, 30*time.Second, `"Probe failed"`, `probeType="Readiness"`, `pod="`+full+`"`, `containerName="app"`)
	if p, _ := c.pod(pod.Name); p == nil || ready(p) {
		t.Fatalf("the pod is Ready while the app's port is closed\n%s", describe(p))
	}

	// Port open: ready.
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitEvent(t, events, "app:6379", "port open", 10*time.Second)
	c.waitPod(t, pod.Name, "Ready once the port is open", time.Minute, ready)

	// Port closed again: unready (tend: 3 failures 2 s apart; the
	// kubelet: 3 failures 5 s apart), then the app container restarted
	// for failing liveness (tend: 5 failures; the kubelet: 3, 10 s apart),
	// while the tend sidecar stays up.
	if err := os.Remove(open); err != nil {
		t.Fatal(err)
	}
	c.waitEvent(t, events, "app:6379", "port closed", 10*time.Second)
	c.waitPod(t, pod.Name, "unready once the port is closed", time.Minute, func(p *corev1.Pod) bool { return !ready(p) })
	c.waitPod(t, pod.Name, "the app container restarted, the sidecar not", 2*time.Minute, func(p *corev1.Pod) bool {
		return container(p, "app").RestartCount >= 1
	})
	if p, _ := c.pod(pod.Name); p == nil || container(p, "health").RestartCount != 0 {
		t.Errorf("the tend sidecar restarted too\n%s", describe(p))
	}
}
