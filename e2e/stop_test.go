package e2e

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// stopPod removes a running pod's manifest and returns each container's
// exit code (by container name) and the pod's events once all have exited.
func (c *cluster) stopPod(t *testing.T, pod *corev1.Pod, events string) (map[string]int, []event) {
	t.Helper()
	ids := map[string]string{}
	for _, ct := range pod.Spec.Containers {
		ids[ct.Name] = c.containerID(t, pod.Name, ct.Name)
	}
	c.remove(t, pod.Name)
	codes := map[string]int{}
	for name, id := range ids {
		code, err := c.exits.wait(id, 2*time.Minute)
		if err != nil {
			t.Fatalf("%s: %v\nevents:\n%s%s", name, err, dump(readEvents(events)), c.diag(pod.Name))
		}
		codes[name] = code
	}
	return codes, readEvents(events)
}

// waitRunning waits until every container of the pod runs and each app
// has recorded that it serves.
func (c *cluster) waitRunning(t *testing.T, pod *corev1.Pod, events string, ports ...int) {
	t.Helper()
	c.waitPod(t, pod.Name, "every container running", 2*time.Minute, func(p *corev1.Pod) bool {
		for _, ct := range pod.Spec.Containers {
			if container(p, ct.Name).State.Running == nil {
				return false
			}
		}
		return true
	})
	for _, port := range ports {
		c.waitEvent(t, events, fmt.Sprintf("app:%d", port), "serving", 30*time.Second)
	}
}

// TestStopSignal is check 4. lifecycle.stopSignal (alpha in v1.33, gate
// ContainerStopSignals) reaches the runtime as a CRI field that
// containerd 1.6 predates, so it cannot take effect here; the image's
// STOPSIGNAL does: containerd sends QUIT, tend (--stop-signal QUIT) takes
// it as the stop, runs pre-stop, then sends the app QUIT.
func TestStopSignal(t *testing.T) {
	c := need(t)
	const port = 18140
	portsFree(t, port)
	pod := newPod("stopsignal", 20, newContainer("app", imgToolsQuit, map[string]string{"APP_EXIT_CODE": "3"},
		"/tend", "--stop-signal", "QUIT", "--pre-stop", `["/app", "drain-connections"]`,
		"--", "/app", "serve", "--port", fmt.Sprint(port)))
	events := c.apply(t, pod)
	c.waitRunning(t, pod, events, port)
	codes, evs := c.stopPod(t, pod, events)
	app := fmt.Sprintf("app:%d", port)
	c.inOrder(t, pod.Name, evs, [2]string{"pre-stop", "begin"}, [2]string{"pre-stop", "end"}, [2]string{app, "got SIGQUIT"}, [2]string{app, "exit 3"})
	if i := find(evs, app, "got SIGTERM"); i >= 0 {
		t.Errorf("the app got TERM as well as QUIT; events:\n%s", dump(evs))
	}
	if codes["app"] != 3 {
		t.Errorf("the container exited %d, want the app's 3; events:\n%s", codes["app"], dump(evs))
	}
}

// TestKubeletHooks is check 7: the kubelet's own preStop hooks work with
// tend as PID 1: an exec hook that runs `tend --check` inside the
// container, and an httpGet hook against the app. Each runs before its
// container's stop signal.
func TestKubeletHooks(t *testing.T) {
	c := need(t)
	const execPort, httpPort = 18171, 18172
	portsFree(t, execPort, httpPort)
	serve := func(name string, port, code int) corev1.Container {
		return newContainer(name, imgTools, map[string]string{"APP_EXIT_CODE": fmt.Sprint(code)},
			"/tend", "--", "/app", "serve", "--port", fmt.Sprint(port))
	}
	execC, httpC := serve("exec", execPort, 4), serve("http", httpPort, 5)
	execC.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{
		Command: []string{"/tend", "--check", fmt.Sprintf("http://127.0.0.1:%d/hook/exec-prestop", execPort)}}}}
	// host: with hostNetwork the kubelet's hook runner asks the runtime
	// for the pod's IP, and containerd reports none for a host-network
	// sandbox ("failed to find networking container"); probes use the
	// node's address instead, hooks do not.
	httpC.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{
		Host: "127.0.0.1", Path: "/hook/http-prestop", Port: intstr.FromInt32(httpPort)}}}
	pod := newPod("kubelet-hooks", 20, execC, httpC)
	events := c.apply(t, pod)
	c.waitRunning(t, pod, events, execPort, httpPort)
	codes, evs := c.stopPod(t, pod, events)
	c.inOrder(t, pod.Name, evs, [2]string{"hook", "exec-prestop"}, [2]string{fmt.Sprintf("app:%d", execPort), "got SIGTERM"})
	c.inOrder(t, pod.Name, evs, [2]string{"hook", "http-prestop"}, [2]string{fmt.Sprintf("app:%d", httpPort), "got SIGTERM"})
	if codes["exec"] != 4 || codes["http"] != 5 {
		t.Errorf("exit codes %v, want the apps' exec=4 http=5; events:\n%s", codes, dump(evs))
	}
	if c.logHas(`"PreStop hook failed"`, "kubelet-hooks") {
		t.Errorf("the kubelet logged a failed preStop hook\n%s", c.diag("kubelet-hooks"))
	}
}
