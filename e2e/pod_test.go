package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// loadManifest reads one of the shipped example pods, strictly (as
// examples/examples_test.go does).
func loadManifest(t *testing.T, path string) *corev1.Pod {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict(b, &pod); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &pod
}

// TestShippedPod is check 1: examples/kubernetes/pod.yaml as shipped, on
// the image that examples/app/Dockerfile builds. The only changes: the
// image's name and imagePullPolicy: Never, hostNetwork (no CNI here), an
// events volume, a post-stop hook that reports the code tend saw, and
// the app's exit code. The manifest's own command and args stand: kapp
// answers `/app serve --port 8080` and the image's
// `/app warm-cache` / `/app drain-connections` hooks.
func TestShippedPod(t *testing.T) {
	c := need(t)
	portsFree(t, 8080, 8081)
	pod := loadManifest(t, "../examples/kubernetes/pod.yaml")
	pod.Spec.HostNetwork = true
	ct := &pod.Spec.Containers[0]
	ct.Image, ct.ImagePullPolicy = imgMyApp, corev1.PullNever
	ct.Env = append(ct.Env,
		corev1.EnvVar{Name: "TEND_POST_STOP", Value: `["/app", "post-stop"]`},
		corev1.EnvVar{Name: "APP_EXIT_CODE", Value: "7"})
	if ct.Name != "app" || pod.Name != "myapp" {
		t.Fatalf("pod.yaml changed shape: pod %s, container %s", pod.Name, ct.Name)
	}
	events := c.apply(t, pod)

	// The image's post-start (kapp warm-cache, 3 s) runs beside the app;
	// meanwhile tend's /readyz answers 503 and the kubelet keeps the pod
	// unready.
	c.waitEvent(t, events, "post-start", "begin", 2*time.Minute)
	sawPostStart := false
	var p *corev1.Pod
	err := poll(90*time.Second, func() (bool, error) {
		if code, body, err := get("http://127.0.0.1:8081/readyz"); err == nil && code == 503 && strings.Contains(body, "post-start") {
			sawPostStart = true
		}
		p, err := c.pod(pod.Name)
		if err != nil || p == nil {
			return false, nil
		}
		// Events read after the status: a Ready pod whose post-start had
		// not ended by then was Ready too early.
		evs := readEvents(events)
		ended := find(evs, "post-start", "end") >= 0
		if ready(p) && !ended {
			t.Fatalf("the pod is Ready before tend's post-start ended; events:\n%s%s", dump(evs), describe(p))
		}
		return ready(p), nil
	})
	if err != nil {
		p, _ = c.pod(pod.Name)
		t.Fatalf("the pod never became Ready: %v\n%s\nevents:\n%s%s", err, describe(p), dump(readEvents(events)), c.diag(pod.Name))
	}
	if !sawPostStart {
		t.Errorf("tend's /readyz never answered 503 \"post-start running\" while the post-start hook ran")
	}

	// The kubelet's own probes, against tend's /livez and /readyz, pass:
	// -v=3 logs every success; a failure would be logged at -v=2.
	full := "default/" + pod.Name + "-" + node
	c.waitLog(t, 45*time.Second, `"Probe succeeded"`, `probeType="Liveness"`, `pod="`+full+`"`)
	c.waitLog(t, 45*time.Second, `"Probe succeeded"`, `probeType="Readiness"`, `pod="`+full+`"`)
	if c.logHas(`"Probe failed"`, `probeType="Liveness"`, `pod="`+full+`"`) {
		t.Errorf("a kubelet liveness probe against tend's /livez failed\n%s", c.diag(pod.Name))
	}
	c.waitPod(t, pod.Name, "Ready with no restart", 10*time.Second, func(p *corev1.Pod) bool {
		return ready(p) && container(p, "app").RestartCount == 0
	})

	// Removing the manifest stops the pod: tend's pre-stop, then the
	// app's TERM; the app exits within the grace period with its own code,
	// which tend's post-stop sees and which becomes the container's.
	id := c.containerID(t, pod.Name, "app")
	removed := time.Now()
	c.remove(t, pod.Name)
	code, err := c.exits.wait(id, 2*time.Minute)
	if err != nil {
		t.Fatalf("%v\nevents:\n%s%s", err, dump(readEvents(events)), c.diag(pod.Name))
	}
	evs := readEvents(events)
	c.inOrder(t, pod.Name, evs, [2]string{"pre-stop", "begin"}, [2]string{"pre-stop", "end"}, [2]string{"app:8080", "got SIGTERM"},
		[2]string{"app:8080", "exit 7"}, [2]string{"post-stop", "exit=7"})
	if code != 7 {
		t.Errorf("the container exited %d, want the app's 7; events:\n%s", code, dump(evs))
	}
	grace := time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	if took := evs[find(evs, "post-stop", "")].at.Sub(evs[find(evs, "pre-stop", "begin")].at); took > grace {
		t.Errorf("the stop took %s, more than the %s grace period", took, grace)
	}
	t.Logf("stopped %s after the manifest's removal; events:\n%s", time.Since(removed).Round(time.Millisecond), dump(evs))
}
