package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSandboxReapsOrphans is check 6. tend's own image is containerd's
// sandbox_image, so every pod of this run starts on it; here a
// shared-PID pod's container double-forks children and exits their
// parents at once. The orphans belong to the pod's PID 1, the sandbox's
// tend, which must reap each one as it exits: no zombie may remain.
func TestSandboxReapsOrphans(t *testing.T) {
	c := need(t)
	const n = 20
	// (sleep 6 &) forks a subshell that starts sleep and exits: sleep is
	// orphaned at once and lives 6 s, long enough to be seen re-parented.
	script := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do (sleep 6 &); i=$((i+1)); done; /app log spawned; exec sleep 3600`, n)
	pod := newPod("orphans", 5, newContainer("spawner", imgTools, nil, "/bin/sh", "-c", script))
	share := true
	pod.Spec.ShareProcessNamespace = &share
	events := c.apply(t, pod)
	c.waitEvent(t, events, "log", "spawned", 2*time.Minute)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pid, err := c.cri.sandboxPID(ctx, pod.Name+"-"+node)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.diag(pod.Name))
	}
	if cmd := cmdline(pid); cmd != "/tend --" {
		t.Fatalf("the sandbox runs %q, want tend's image (/tend --)", cmd)
	}
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		t.Fatal(err)
	}

	// The orphans are tend's children now...
	var orphans, zombies int
	if err := poll(20*time.Second, func() (bool, error) {
		orphans, zombies = scanNamespace(ns, pid)
		return orphans >= n, nil
	}); err != nil {
		t.Fatalf("saw %d of the %d orphans re-parented to the sandbox's tend (pid %d)\n%s", orphans, n, pid, c.diag(pod.Name))
	}
	// ...and once they exit, none stays a zombie.
	if err := poll(30*time.Second, func() (bool, error) {
		orphans, zombies = scanNamespace(ns, pid)
		return orphans == 0 && zombies == 0, nil
	}); err != nil {
		t.Fatalf("%d orphans and %d zombies left in the pod's PID namespace: the sandbox's tend did not reap them\n%s", orphans, zombies, c.diag(pod.Name))
	}
}

// scanNamespace counts, among the processes in the PID namespace ns (as
// the host's /proc shows them), the children of reaper that sleep (the
// orphans) and the zombies.
func scanNamespace(ns string, reaper int) (orphans, zombies int) {
	ents, _ := os.ReadDir("/proc") // /proc is always there
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid)); err != nil || l != ns {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // exited meanwhile
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:]) // state, ppid, ...
		if i < 0 || len(f) < 2 {
			continue
		}
		if f[0] == "Z" {
			zombies++
		}
		if f[1] == strconv.Itoa(reaper) && strings.Contains(s[:i], "(sleep") && f[0] != "Z" {
			orphans++
		}
	}
	return orphans, zombies
}

// cmdline is a process's command line with spaces between the arguments.
func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)) // gone: ""
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
