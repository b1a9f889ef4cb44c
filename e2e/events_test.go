package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// event is one line that kapp (the app or one of its hooks) appended to a
// pod's events file: "UNIXNANO PID WHO WHAT...".
type event struct {
	at   time.Time
	pid  int
	who  string // app:PORT, post-start, pre-stop, post-stop, hook, log
	what string
}

func (e event) String() string {
	return e.at.Format("15:04:05.000") + " " + strconv.Itoa(e.pid) + " " + e.who + " " + e.what
}

func readEvents(dir string) []event {
	b, _ := os.ReadFile(filepath.Join(dir, "log")) // no file yet: no events
	var evs []event
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.SplitN(l, " ", 4)
		if len(f) < 4 {
			continue
		}
		ns, err1 := strconv.ParseInt(f[0], 10, 64)
		pid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		evs = append(evs, event{time.Unix(0, ns), pid, f[2], f[3]})
	}
	return evs
}

// find returns the index of the first event from who whose text starts
// with what, or -1.
func find(evs []event, who, what string) int {
	for i, e := range evs {
		if e.who == who && strings.HasPrefix(e.what, what) {
			return i
		}
	}
	return -1
}

func dump(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("  " + e.String() + "\n")
	}
	return b.String()
}

// waitEvent waits until the events file holds the event and returns all
// events read so far.
func (c *cluster) waitEvent(t *testing.T, dir, who, what string, timeout time.Duration) []event {
	t.Helper()
	var evs []event
	err := poll(timeout, func() (bool, error) {
		evs = readEvents(dir)
		return find(evs, who, what) >= 0, nil
	})
	if err != nil {
		t.Fatalf("no event %q %q within %s; events:\n%s%s", who, what, timeout, dump(evs), c.diag(filepath.Base(dir)))
	}
	return evs
}

// inOrder fails the test unless the pod's events appear in this order;
// each pair is who and a prefix of what.
func (c *cluster) inOrder(t *testing.T, pod string, evs []event, steps ...[2]string) {
	t.Helper()
	last := -1
	for _, s := range steps {
		i := find(evs, s[0], s[1])
		if i < 0 || i < last {
			t.Fatalf("want events in the order %q; %q %s; events:\n%s%s", steps, s[0]+" "+s[1],
				map[bool]string{true: "is missing", false: "came too early"}[i < 0], dump(evs), c.diag(pod))
		}
		last = i
	}
}

// Images the harness builds (images_test.go).
const (
	imgTend      = "localhost/tend-e2e/tend:1"       // the repository's Dockerfile: /tend alone
	imgSandbox   = "localhost/tend-e2e/sandbox:1"    // imgTend with TEND_PAUSE=1: every pod's sandbox
	imgMyApp     = "localhost/tend-e2e/myapp:1"      // examples/app/Dockerfile with kapp as /app
	imgTools     = "localhost/tend-e2e/tools:1"      // busybox, /tend, /app (kapp), /fakeapp; ENTRYPOINT [/tend --]
	imgToolsQuit = "localhost/tend-e2e/tools-quit:1" // imgTools with STOPSIGNAL SIGQUIT
)

// newPod is a static pod on the host's network (no CNI is configured:
// the kubelet probes the node's address, which is this machine's own).
func newPod(name string, grace int64, cs ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			HostNetwork:                   true,
			TerminationGracePeriodSeconds: &grace,
			Containers:                    cs,
		},
	}
}

// newContainer runs argv in image, never pulling (the image was imported).
func newContainer(name, image string, env map[string]string, argv ...string) corev1.Container {
	ct := corev1.Container{Name: name, Image: image, ImagePullPolicy: corev1.PullNever, Command: argv}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		ct.Env = append(ct.Env, corev1.EnvVar{Name: k, Value: env[k]})
	}
	return ct
}
