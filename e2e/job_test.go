package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestJobMeshSidecarQuits: a Job-shaped pod (restartPolicy Never) whose
// fake mesh sidecar (kapp mesh, as Istio's pilot-agent) runs until told to
// quit. tend's post-stop POST /quitquitquit, sent after the job's app has
// exited, makes the sidecar exit, so the pod completes (Succeeded); with
// the kubelet's GET-only hooks it would run forever (kubernetes #25908).
func TestJobMeshSidecarQuits(t *testing.T) {
	c := need(t)
	portsFree(t, 15020)
	never := corev1.RestartPolicyNever
	pod := &corev1.Pod{Spec: corev1.PodSpec{HostNetwork: true, RestartPolicy: never, Containers: []corev1.Container{
		{Name: "job", Image: imgTools, ImagePullPolicy: corev1.PullNever,
			// The job waits for its mesh, as an app in a mesh waits
			// for the proxy, then does its work and exits 0.
			Command: []string{"/tend", "--post-stop", `{"httpPost":{"port":15020,"path":"/quitquitquit","body":"job done"}}`, "--",
				"/bin/sh", "-c", "until /tend --check http://127.0.0.1:15020/ready; do sleep 0.1; done; /app log job done"}},
		{Name: "mesh", Image: imgTools, ImagePullPolicy: corev1.PullNever, Command: []string{"/app", "mesh", "--port", "15020"}},
	}}}
	pod.APIVersion, pod.Kind, pod.Name, pod.Namespace = "v1", "Pod", "job-mesh", "default"
	events := c.apply(t, pod)
	evs := c.waitEvent(t, events, "mesh:15020", "exit 0", 3*time.Minute)
	c.waitPod(t, pod.Name, "Succeeded: both containers exited 0", 2*time.Minute, func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodSucceeded
	})
	done, quit := find(evs, "log", "job done"), find(evs, "mesh:15020", "quit POST")
	if done < 0 || quit < 0 || quit < done || !strings.Contains(evs[quit].what, `body="job done"`) {
		t.Fatalf("want the job's end, then the mesh's POST with the body; events:\n%s", dump(evs))
	}
	t.Logf("job's last event -> POST at the mesh sidecar: %s", evs[quit].at.Sub(evs[done].at))
}
