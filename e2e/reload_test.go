package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestReloadOn: tend --reload-on on a volume that the kubelet itself
// writes with its atomic writer (kubernetes pkg/volume/util/atomic_writer.go:
// a "..TIMESTAMP" directory, "..data" swapped by rename, a link per key).
// There is no API server here, so no ConfigMap; a downwardAPI volume of
// the pod's annotations goes through the same writer, and a static pod
// with a fixed metadata.uid whose manifest changes only in annotations is
// an update of the same pod (kubelet config.go checkAndUpdatePod), on
// which the volume manager remounts the downwardAPI volume
// (RequiresRemount). tend watches one key, app.conf: a swap that changes
// it reaches the app as exactly one HUP; a swap that changes only the
// other key leaves app.conf's bytes as they were, and tend logs that and
// sends nothing.
func TestReloadOn(t *testing.T) {
	c := need(t)
	const port = 18190
	portsFree(t, port)
	app := newContainer("app", imgTools, nil, "/tend", "-vv", "--reload-on", "/conf/app.conf",
		"--", "/app", "serve", "--port", fmt.Sprint(port))
	app.VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/conf", ReadOnly: true}}
	pod := newPod("reload-on", 10, app)
	// A fixed uid: without one the kubelet names a static pod by a hash
	// of its manifest, and a changed annotation would be a new pod.
	pod.UID = types.UID("3f1c2a6e-0000-4000-8000-0000000e2e33")
	pod.Annotations = map[string]string{"conf": "v1", "other": "a"}
	field := func(key string) *corev1.ObjectFieldSelector {
		return &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + key + "']"}
	}
	pod.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
		Items: []corev1.DownwardAPIVolumeFile{{Path: "app.conf", FieldRef: field("conf")}, {Path: "other", FieldRef: field("other")}}}}}}
	events := c.apply(t, pod)
	c.waitRunning(t, pod, events, port)
	who := fmt.Sprintf("app:%d", port)

	// The volume as the kubelet wrote it, seen from the host.
	vol := c.path("kubelet", "pods", string(pod.UID), "volumes", "kubernetes.io~downward-api", "conf")
	if l, err := os.Readlink(filepath.Join(vol, "app.conf")); err != nil || l != "..data/app.conf" {
		t.Fatalf("%s/app.conf: want the kubelet's link to ..data/app.conf, got %q, %v", vol, l, err)
	}
	hups := func() int {
		n := 0
		for _, e := range readEvents(events) {
			if e.who == who && e.what == "got SIGHUP" {
				n++
			}
		}
		return n
	}

	// update changes the pod's annotations and returns when the kubelet
	// has swapped ..data, with the time of the swap (the mtime of the
	// ..data link, made just before the rename).
	update := func(conf, other string) time.Time {
		t.Helper()
		before, err := os.Readlink(filepath.Join(vol, "..data"))
		if err != nil {
			t.Fatal(err)
		}
		pod.Annotations["conf"], pod.Annotations["other"] = conf, other
		c.write(t, pod)
		var swapped time.Time
		if err := poll(90*time.Second, func() (bool, error) {
			now, err := os.Readlink(filepath.Join(vol, "..data"))
			if err != nil || now == before {
				return false, nil
			}
			b, err1 := os.ReadFile(filepath.Join(vol, "app.conf"))
			o, err2 := os.ReadFile(filepath.Join(vol, "other"))
			fi, err3 := os.Lstat(filepath.Join(vol, "..data"))
			if err1 != nil || err2 != nil || err3 != nil || string(b) != conf || string(o) != other {
				return false, nil
			}
			swapped = fi.ModTime()
			return true, nil
		}); err != nil {
			t.Fatalf("the kubelet never swapped the volume to conf=%s other=%s: %v\n%s", conf, other, err, c.diag(pod.Name))
		}
		return swapped
	}
	// sameBytes updates only the other key and waits for tend's verdict
	// on that swap: a "no byte changed" line logged after it.
	sameBytes := func(conf, other string, wantHUPs int) {
		t.Helper()
		swapped := update(conf, other)
		c.waitPodLog(t, pod.Name, "app", swapped, 30*time.Second, "reload: files touched, no byte changed")
		if n := hups(); n != wantHUPs {
			t.Fatalf("after a swap that left app.conf as it was: %d HUPs, want %d\nevents:\n%s", n, wantHUPs, dump(readEvents(events)))
		}
	}
	changed := func(conf, other string, wantHUPs int) {
		t.Helper()
		swapped := update(conf, other)
		evs := c.waitEventN(t, events, who, "got SIGHUP", wantHUPs, 30*time.Second)
		t.Logf("the kubelet's ..data swap to the app's HUP: %s", evs[len(evs)-1].at.Sub(swapped).Round(time.Millisecond))
		c.waitPodLog(t, pod.Name, "app", swapped, 10*time.Second, "reload: ", "app.conf", "changed: sending")
	}

	changed("v2", "a", 1)
	sameBytes("v2", "b", 1)
	changed("v3", "b", 2)
	sameBytes("v3", "c", 2)
	t.Logf("events:\n%s", dump(readEvents(events)))
}

// waitEventN waits until the events file holds n events from who whose
// text starts with what, and returns those events.
func (c *cluster) waitEventN(t *testing.T, dir, who, what string, n int, timeout time.Duration) []event {
	t.Helper()
	var got []event
	err := poll(timeout, func() (bool, error) {
		got = got[:0]
		for _, e := range readEvents(dir) {
			if e.who == who && strings.HasPrefix(e.what, what) {
				got = append(got, e)
			}
		}
		return len(got) >= n, nil
	})
	if err != nil {
		t.Fatalf("%d events %q %q within %s, want %d; events:\n%s%s", len(got), who, what, timeout, n, dump(readEvents(dir)), c.diag(filepath.Base(dir)))
	}
	return got
}

// waitPodLog waits for a line of a container's log (the kubelet's CRI log
// files under pod-logs: "RFC3339NANO STREAM TAG TEXT") stamped at or after
// since that holds every one of words.
func (c *cluster) waitPodLog(t *testing.T, pod, ctr string, since time.Time, timeout time.Duration, words ...string) {
	t.Helper()
	files := c.path("pod-logs", "default_"+pod+"-"+node+"_*", ctr, "*.log")
	var text string
	err := poll(timeout, func() (bool, error) {
		text = ""
		logs, _ := filepath.Glob(files) // the pattern is valid
		for _, f := range logs {
			b, _ := os.ReadFile(f) // a log not yet written has no lines
			text += string(b)
		}
		for _, l := range strings.Split(text, "\n") {
			f := strings.SplitN(l, " ", 2)
			at, err := time.Parse(time.RFC3339Nano, f[0])
			if err != nil || at.Before(since) {
				continue
			}
			all := true
			for _, w := range words {
				all = all && strings.Contains(l, w)
			}
			if all {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no line with %q after %s in %s within %s; the log:\n%s", words, since.Format(time.RFC3339Nano), files, timeout, text)
	}
}
