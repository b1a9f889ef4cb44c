package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"sigs.k8s.io/yaml"
)

// pods reads every pod with its status from the kubelet's read-only port:
// with no API server, that is where a standalone kubelet shows status.
func (c *cluster) pods() ([]corev1.Pod, error) {
	client := http.Client{Timeout: 5 * time.Second}
	r, err := client.Get("http://127.0.0.1:10255/pods")
	if err != nil {
		return nil, err
	}
	defer r.Body.Close() // read to the end below
	var list corev1.PodList
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("decoding /pods: %w", err)
	}
	return list.Items, nil
}

// pod returns a static pod by its manifest name, nil when the kubelet has
// none.
func (c *cluster) pod(name string) (*corev1.Pod, error) {
	items, err := c.pods()
	if err != nil {
		return nil, err
	}
	for i := range items {
		if items[i].Name == name+"-"+node {
			return &items[i], nil
		}
	}
	return nil, nil
}

// waitPod polls the pod's status until ok accepts it, and fails the test
// with the status and the logs' tails when that does not happen in time.
func (c *cluster) waitPod(t *testing.T, name, what string, timeout time.Duration, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	var lastErr error
	err := poll(timeout, func() (bool, error) {
		last, lastErr = c.pod(name)
		return lastErr == nil && last != nil && ok(last), nil
	})
	if err != nil {
		t.Fatalf("pod %s: %s: not seen within %s (last read error: %v)\nstatus:\n%s\n%s", name, what, timeout, lastErr, describe(last), c.diag(name))
	}
	return last
}

// apply writes a static pod manifest, after giving every container the
// pod's events directory at /events, and returns that directory. The
// test's cleanup removes the pod and waits until it is gone.
func (c *cluster) apply(t *testing.T, pod *corev1.Pod) (events string) {
	t.Helper()
	events = c.path("events", pod.Name)
	if err := os.RemoveAll(events); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(events, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := corev1.HostPathDirectory
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "events",
		VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: events, Type: &dir}}})
	for i := range pod.Spec.Containers {
		pod.Spec.Containers[i].VolumeMounts = append(pod.Spec.Containers[i].VolumeMounts, corev1.VolumeMount{Name: "events", MountPath: "/events"})
	}
	c.write(t, pod)
	t.Logf("applied pod %s", pod.Name)
	t.Cleanup(func() {
		c.remove(t, pod.Name)
		if err := c.waitGone(pod.Name, 90*time.Second); err != nil {
			t.Errorf("cleanup: %v\n%s", err, c.diag(pod.Name))
		}
	})
	return events
}

// write writes a pod's manifest as it is now: apply's first write, or an
// update of a running pod (one with a fixed metadata.uid, so the kubelet
// sees the same pod changed, not a new one).
func (c *cluster) write(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	b, err := yaml.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	// Written beside, then renamed in: the kubelet ignores dot files and
	// so never reads half a manifest.
	tmp := c.path("manifests", "."+pod.Name+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, c.path("manifests", pod.Name+".yaml")); err != nil {
		t.Fatal(err)
	}
}

// remove deletes a pod's manifest: the kubelet then stops the pod
// gracefully (preStop, the stop signal, the grace period).
func (c *cluster) remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(c.path("manifests", name+".yaml")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// waitGone waits until the kubelet no longer has the pod and none of its
// containers runs. (Exited containers stay until the kubelet's container
// GC, once a minute; teardown removes them.)
func (c *cluster) waitGone(name string, timeout time.Duration) error {
	err := poll(timeout, func() (bool, error) {
		p, err := c.pod(name)
		if err != nil || p != nil {
			return false, nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cs, err := c.cri.containers(ctx, name+"-"+node)
		if err != nil {
			return false, nil
		}
		for _, ct := range cs {
			if ct.State != runtimeapi.ContainerState_CONTAINER_EXITED {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("pod %s still there: %w", name, err)
	}
	return nil
}

// removeAllPods removes every manifest and waits for the pods to go.
func (c *cluster) removeAllPods(timeout time.Duration) error {
	ms, _ := filepath.Glob(c.path("manifests", "*.yaml")) // the pattern is valid
	for _, m := range ms {
		if err := os.Remove(m); err != nil {
			return err
		}
	}
	return poll(timeout, func() (bool, error) {
		ps, err := c.pods()
		return err == nil && len(ps) == 0, nil
	})
}

// containerID is the runtime's id of a container's newest attempt.
func (c *cluster) containerID(t *testing.T, pod, container string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.cri.containers(ctx, pod+"-"+node)
	if err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, ct := range cs {
		if ct.Metadata.Name == container {
			id = ct.Id
		}
	}
	if id == "" {
		t.Fatalf("no container %s in pod %s\n%s", container, pod, c.diag(pod))
	}
	return id
}

// waitLog waits for a kubelet log line that holds every one of words.
func (c *cluster) waitLog(t *testing.T, timeout time.Duration, words ...string) {
	t.Helper()
	err := poll(timeout, func() (bool, error) { return c.logHas(words...), nil })
	if err != nil {
		t.Fatalf("no kubelet log line with %q within %s\n%s", words, timeout, c.diag(""))
	}
}

// logHas says whether a kubelet log line holds every one of words.
func (c *cluster) logHas(words ...string) bool {
	b, _ := os.ReadFile(c.path("logs", "kubelet.log")) // a missing log has no lines
	for _, l := range strings.Split(string(b), "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(l, w)
		}
		if all {
			return true
		}
	}
	return false
}

// container returns a container's status by name.
func container(p *corev1.Pod, name string) corev1.ContainerStatus {
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == name {
			return s
		}
	}
	return corev1.ContainerStatus{Name: name}
}

// ready says whether the pod's Ready condition is True.
func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// describe prints the parts of a pod's status the tests look at.
func describe(p *corev1.Pod) string {
	if p == nil {
		return "  (the kubelet has no such pod)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  phase=%s ready=%v", p.Status.Phase, ready(p))
	for _, s := range p.Status.ContainerStatuses {
		fmt.Fprintf(&b, "\n  %s: ready=%v restarts=%d", s.Name, s.Ready, s.RestartCount)
		st, _ := json.Marshal(s.State)
		last, _ := json.Marshal(s.LastTerminationState)
		fmt.Fprintf(&b, " state=%s last=%s", st, last)
	}
	return b.String()
}
