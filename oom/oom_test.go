package oom

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemoryCgroup finds the memory cgroup's directory from /proc/self/cgroup
// and mountinfo as a container shows them: v1 with and without a cgroup
// namespace, v2, and a hybrid host whose v2 line has no memory controller.
func TestMemoryCgroup(t *testing.T) {
	const v1Mount = "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	for _, c := range []struct {
		name, cgroup, mountinfo, want string
		v2                            bool
	}{
		{"v1 host", "4:memory:/process_api/x\n0::/\n", v1Mount, "/sys/fs/cgroup/memory/process_api/x", false},
		{"v1 bind-mounted root", "5:memory,foo:/docker/abc\n", "30 25 0:26 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,foo,memory\n", "/sys/fs/cgroup/memory", false},
		{"v2 namespace", "0::/\n", "31 25 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup", true},
		{"v2 path", "0::/kubepods/pod1/c1\n", "31 25 0:27 / /sys/fs/cgroup rw shared:9 - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup/kubepods/pod1/c1", true},
		{"v1 not mounted", "4:memory:/x\n", "31 25 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "", false},
		{"none", "", v1Mount, "", false},
	} {
		dir := t.TempDir()
		cg, mi := filepath.Join(dir, "cgroup"), filepath.Join(dir, "mountinfo")
		if err := os.WriteFile(cg, []byte(c.cgroup), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mi, []byte(c.mountinfo), 0o644); err != nil {
			t.Fatal(err)
		}
		got, v2, err := memoryCgroup(cg, mi)
		if got != c.want || (err == nil && v2 != c.v2) || (err != nil) != (c.want == "") {
			t.Errorf("%s: got %q v2=%v err=%v, want %q v2=%v", c.name, got, v2, err, c.want, c.v2)
		}
	}
}

// TestChildRaise: the raise makes a child of any size outrank tend in a
// full cgroup, by the kernel's arithmetic, and is 0 without a limit.
func TestChildRaise(t *testing.T) {
	const tend = 8 << 20
	for _, limit := range []uint64{4 << 20, 24 << 20, 256 << 20, 4 << 30} {
		r := childRaise(limit, tend)
		unit := limit / 4096 / 1000 // pages per point, as oom_badness
		if r < 2000 && uint64(r)*unit*4096 <= tend+tendOOMBudget {
			t.Errorf("limit %d: raise %d is not enough", limit, r)
		}
		t.Logf("limit %d MiB: raise %d", limit>>20, r)
	}
	if r := childRaise(0, tend); r != 0 {
		t.Errorf("no limit: raise %d", r)
	}
	if r := childRaise(1<<63, tend); r != 0 {
		t.Errorf("v1's unlimited: raise %d", r)
	}
}

func TestOOMKills(t *testing.T) {
	f := filepath.Join(t.TempDir(), "memory.events")
	if err := os.WriteFile(f, []byte("low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := kills(f); n != 2 || err != nil {
		t.Errorf("kills = %d, %v; want 2", n, err)
	}
}
