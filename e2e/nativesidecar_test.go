package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestNativeSidecar: tend as a native sidecar (an initContainer with
// restartPolicy: Always, Kubernetes 1.29+; this kubelet is 1.33), the
// health responder for an app with no health endpoint. The kubelet starts
// the app only once the sidecar's startupProbe has passed; that probe is
// on /livez, as the README recommends, and tend's liveness check of the
// app (not yet started) fails its threshold long before the probe's first
// attempt: /livez must stay 200 for an app never seen up, or the pod
// deadlocks. Then the app's own kubelet probes are served by tend, and a
// stop ends the app first and the sidecar after it (pre-stop and
// post-stop in the sidecar record when its stop began and ended).
func TestNativeSidecar(t *testing.T) {
	c := need(t)
	const appPort, healthPort = 6390, 8091
	portsFree(t, appPort, healthPort)
	always := corev1.ContainerRestartPolicyAlways
	target := "app=tcp://127.0.0.1:6390"
	health := newContainer("health", imgTools, nil, "/tend",
		"--health-addr=0.0.0.0:8091", "--probe-period=1s", "--live-probe-failure-threshold=1",
		"--ready-probe="+target, "--live-probe="+target,
		`--pre-stop=["/app","log","sidecar-stopping"]`, `--post-stop=["/app","log","sidecar-stopped"]`)
	health.RestartPolicy = &always
	get := func(path string) corev1.ProbeHandler {
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "127.0.0.1", Port: intstr.FromInt32(healthPort), Path: path}}
	}
	// The first attempt after 3 s: by then tend's liveness check of the
	// app has failed three times over its threshold of 1.
	health.StartupProbe = &corev1.Probe{ProbeHandler: get("/livez"), InitialDelaySeconds: 3, PeriodSeconds: 1, FailureThreshold: 30, TimeoutSeconds: 1}
	health.VolumeMounts = []corev1.VolumeMount{{Name: "events", MountPath: "/events"}} // apply mounts it in Containers only
	app := newContainer("app", imgTools, nil, "/app", "tcp", "--port", "6390", "--open-file", "/events/open")
	app.ReadinessProbe = &corev1.Probe{ProbeHandler: get("/readyz"), PeriodSeconds: 1, TimeoutSeconds: 1}
	app.LivenessProbe = &corev1.Probe{ProbeHandler: get("/livez"), PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 3}
	pod := newPod("native-sidecar", 10, app)
	pod.Spec.InitContainers = []corev1.Container{health}
	events := c.apply(t, pod)
	if err := os.WriteFile(filepath.Join(events, "open"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	// The pod starts: the sidecar's startup probe passes, the app starts,
	// and the app's readiness (tend's /readyz) makes the pod Ready.
	c.waitPod(t, pod.Name, "Ready, the sidecar and the app running", 3*time.Minute, func(p *corev1.Pod) bool {
		return ready(p) && container(p, "app").State.Running != nil
	})
	full := "default/" + pod.Name + "-" + node
	c.waitLog(t, 30*time.Second, `"Probe succeeded"`, `probeType="Readiness"`, `pod="`+full+`"`, `containerName="app"`)
	c.waitLog(t, 30*time.Second, `"Probe succeeded"`, `probeType="Liveness"`, `pod="`+full+`"`, `containerName="app"`)
	if c.logHas(`"Probe failed"`, `probeType="Startup"`, `pod="`+full+`"`, `containerName="health"`) {
		t.Errorf("the sidecar's startup probe on /livez failed at least once\n%s", c.diag(pod.Name))
	}
	if p, _ := c.pod(pod.Name); p == nil || len(p.Status.InitContainerStatuses) != 1 || p.Status.InitContainerStatuses[0].RestartCount != 0 {
		t.Errorf("the sidecar restarted\n%s", describe(p))
	}

	// The stop, in the kubelet's order: the app first, then the sidecar.
	c.remove(t, pod.Name)
	c.waitEvent(t, events, "log", "sidecar-stopped", 2*time.Minute)
	evs := readEvents(events)
	c.inOrder(t, pod.Name, evs, [2]string{"app:6390", "port open"}, [2]string{"app:6390", "exit"},
		[2]string{"log", "sidecar-stopping"}, [2]string{"log", "sidecar-stopped"})
	t.Logf("events:\n%s", dump(evs))
}
