package watch

import (
	"fmt"
	"testing"
)

// TestReloadsSeen: a reload on changed bytes only, never two at once (a
// change during a reload action waits for it, and several collapse into
// one), none once a stop is under way, and before the app the new bytes
// are simply the ones it will read.
func TestReloadsSeen(t *testing.T) {
	snap := func(v string) Snapshot { return Snapshot{"/etc/app.conf": v} }
	r := Reloads{Applied: snap("a")}
	for i, c := range []struct {
		v       string
		stage   Stage
		busy    bool
		want    Verdict
		applied string
		count   uint64
	}{
		{"a", Live, false, Same, "a", 0},
		{"b", Before, false, Adopted, "b", 0},
		{"c", Live, false, Reload, "c", 1},
		{"c", Live, false, Same, "c", 1},
		{"d", Live, true, Deferred, "c", 1},
		{"e", Live, true, Deferred, "c", 1}, // replaces d
		{"f", Stopping, false, Refused, "c", 1},
	} {
		got, changed := r.Seen(snap(c.v), c.stage, c.busy)
		if got != c.want || r.Applied["/etc/app.conf"] != c.applied || r.Count != c.count {
			t.Fatalf("step %d (%q): %v, applied %q, count %d; want %v %q %d", i, c.v, got, r.Applied["/etc/app.conf"], r.Count, c.want, c.applied, c.count)
		}
		if (got == Same) != (len(changed) == 0) {
			t.Fatalf("step %d: changed %q with verdict %v", i, changed, got)
		}
	}
	p := r.Ended()
	if p["/etc/app.conf"] != "e" || r.Ended() != nil {
		t.Fatalf("Ended = %v, then %v: want the last deferred snapshot once", p, r.Ended())
	}
	if got, _ := r.Seen(p, Live, false); got != Reload || r.Count != 2 {
		t.Fatalf("the deferred change must reload once the action ends: %v, count %d", got, r.Count)
	}
}

func TestDescribe(t *testing.T) {
	var six []string
	for i := range 6 {
		six = append(six, fmt.Sprintf("/etc/%d", i))
	}
	for _, c := range []struct {
		paths []string
		most  int
		want  string
	}{
		{nil, 4, ""},
		{six[:2], 4, `"/etc/0", "/etc/1"`},
		{six, 4, `"/etc/0", "/etc/1", "/etc/2", "/etc/3", and 2 more`},
		{six, -1, `"/etc/0", "/etc/1", "/etc/2", "/etc/3", "/etc/4", "/etc/5"`},
		{[]string{"/etc/a\nb"}, 4, `"/etc/a\nb"`},
	} {
		if got := Describe(c.paths, c.most); got != c.want {
			t.Errorf("Describe(%q, %d) = %s, want %s", c.paths, c.most, got, c.want)
		}
	}
}

func TestInert(t *testing.T) {
	base := Snapshot{
		"/etc/app.conf": "abc",
		"/dev/zero":     "(not a regular file: character device)",
		"/run/fifo":     "(not a regular file: FIFO)",
		"/etc/gone":     "(no such file or directory)",
	}
	got := base.Inert([]string{"/etc/app.conf", "/dev/zero", "/run//fifo", "/etc/gone"})
	want := [][2]string{{"/dev/zero", "not a regular file: character device"}, {"/run//fifo", "not a regular file: FIFO"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Inert = %q, want %q", got, want)
	}
}
