package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOOMKillsAChildNotTend runs tend as PID 1 in a real 24 MiB memory
// cgroup (swap counted too) whose app starts 20 children of about 3 MiB
// each (the Go fakeapp's own pages plus 512 KiB it touches): the cgroup
// fills, and the kernel's OOM killer must choose one of the children, not
// tend. Before, tend (6-8 MB resident, file pages included) was the
// largest process and was killed: the namespace died with it, no stop ran,
// and the run ended with unshare's exit 1 and no app output. tini-static
// run the same way loses a child instead. tend must then say what happened:
// a warning that names the OOM killer and the cgroup's oom_kill count.
func TestOOMKillsAChildNotTend(t *testing.T) {
	cg := newMemoryCgroup(t, 24<<20)
	p := startTend(t, opts{shell: fmt.Sprintf(`echo $$ > %s && exec unshare -pf --mount-proc "$TEND" -- "$FAKEAPP" oomfork 20 512`, cg.file("cgroup.procs"))})
	code := p.wait(90 * time.Second)
	kills := cg.oomKills()
	out, stderr := p.stdout.String(), p.stderr.String()
	t.Logf("exit %d, oom_kill %d, app: %q", code, kills, out)
	// Only a tend that outlived the kills can log them; its exit is then
	// the app's: 0, or 137 when the kernel chose the app's own process
	// (under -race, where every binary is larger, it may).
	reported := strings.Contains(stderr, "OOM killer")
	if !reported || (code != 0 && code != 137) {
		t.Fatalf("tend did not outlive the OOM (exit %d, oom_kill %d): the kernel chose tend; stdout %q, stderr:\n%s", code, kills, out, tail(stderr, 10))
	}
	if code == 0 && !strings.Contains(out, "oomfork: 20 children") {
		t.Errorf("the app exited 0 without its report: %q", out)
	}
	if kills == 0 || strings.Contains(out, " 0 killed") {
		t.Fatalf("the cgroup never filled (oom_kill %d): the test proves nothing; stdout %q", kills, out)
	}
	if !strings.Contains(stderr, "oom_kill "+strconv.Itoa(kills)) {
		t.Errorf("tend did not report the cgroup's count (oom_kill %d):\n%s", kills, tail(stderr, 10))
	}
}

// TestOOMKilledAppInTerminationMessage: when the OOM killer kills the app
// itself, tend's log and termination message say so, and tend exits 137 as
// the app's death by SIGKILL. Before, the message was not written at all
// (tend had decided nothing) and the log said only "exited with code 137".
func TestOOMKilledAppInTerminationMessage(t *testing.T) {
	cg := newMemoryCgroup(t, 24<<20)
	msg := filepath.Join(t.TempDir(), "termination-log")
	p := startTend(t, opts{env: []string{"MSG=" + msg}, shell: fmt.Sprintf(`echo $$ > %s && exec unshare -pf --mount-proc "$TEND" --termination-message-path "$MSG" -- "$FAKEAPP" oomhold 65536`, cg.file("cgroup.procs"))})
	code := p.wait(90 * time.Second)
	stderr := p.stderr.String()
	b, _ := os.ReadFile(msg) // missing: reported below
	t.Logf("exit %d, oom_kill %d, termination message %q", code, cg.oomKills(), b)
	if code != 137 {
		t.Fatalf("exit %d, want 137 (the app killed); stderr:\n%s", code, tail(stderr, 10))
	}
	if !strings.Contains(string(b), "killed by the OOM killer") {
		t.Errorf("termination message %q does not name the OOM killer", b)
	}
	if !strings.Contains(stderr, "the app (pid ") || !strings.Contains(stderr, "was killed by the OOM killer") {
		t.Errorf("the log does not name the app as OOM-killed:\n%s", tail(stderr, 10))
	}
}

// memoryCgroup is a memory cgroup made for one test and removed after it.
type memoryCgroup struct {
	dir string
	v2  bool
}

func (c *memoryCgroup) file(name string) string { return filepath.Join(c.dir, name) }

// oomKills is the cgroup's oom_kill count.
func (c *memoryCgroup) oomKills() int {
	name := "memory.oom_control"
	if c.v2 {
		name = "memory.events"
	}
	return keyedCount(c.file(name), "oom_kill")
}

// newMemoryCgroup makes a child of this process's own memory cgroup (from
// /proc/self/cgroup: v1's memory line, else v2's "0::") with limit bytes
// of memory and of memory plus swap. It skips the test when none can be
// made, or fails under TEND_REQUIRE_CONTAINERS=1 (CI), and removes the
// cgroup, killing what is left in it, at the end.
func newMemoryCgroup(t *testing.T, limit int) *memoryCgroup {
	t.Helper()
	fail := t.Skipf
	if os.Getenv("TEND_REQUIRE_CONTAINERS") == "1" {
		fail = t.Fatalf
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		fail("no /proc/self/cgroup: %v", err)
	}
	var c *memoryCgroup
	for _, l := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if strings.Contains(","+parts[1]+",", ",memory,") {
			c = &memoryCgroup{dir: filepath.Join("/sys/fs/cgroup/memory", parts[2])}
			break
		}
		if parts[0] == "0" && parts[1] == "" {
			c = &memoryCgroup{dir: filepath.Join("/sys/fs/cgroup", parts[2]), v2: true}
		}
	}
	if c == nil {
		fail("no memory cgroup in /proc/self/cgroup")
	}
	c.dir = filepath.Join(c.dir, fmt.Sprintf("tend-oomtest-%d", os.Getpid()))
	if c.v2 {
		// A v2 cgroup with processes cannot enable controllers for its
		// children; the test's own cgroup usually has processes.
		_ = os.WriteFile(filepath.Join(filepath.Dir(c.dir), "cgroup.subtree_control"), []byte("+memory"), 0) // checked by memory.max below
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		fail("cannot make a memory cgroup (needs root and a writable memory controller): %v", err)
	}
	t.Cleanup(func() { c.remove() })
	files := []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"}
	if c.v2 {
		files = []string{"memory.max", "memory.swap.max"}
	}
	for i, f := range files {
		v := strconv.Itoa(limit)
		if c.v2 && i == 1 {
			v = "0" // v2 limits swap on its own: none
		}
		err := os.WriteFile(c.file(f), []byte(v), 0)
		switch {
		case err != nil && i == 0:
			fail("setting %s: %v", f, err)
		case err != nil && !os.IsNotExist(err):
			t.Fatalf("setting %s: %v", f, err)
		}
	}
	return c
}

// remove kills whatever is left in the cgroup and removes it.
func (c *memoryCgroup) remove() {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(c.file("cgroup.procs"))
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL) // ESRCH: already gone
			}
		}
		if os.Remove(c.dir) == nil {
			return
		}
	}
}
