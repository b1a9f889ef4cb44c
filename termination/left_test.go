package termination

import (
	"fmt"
	"log/slog"
	"testing"
)

// TestLeftWarning: what the app left is worded by who is left (a child in
// its group, or only a count) and whether a stop was under way; after a
// stop, only a wrapper's child is worth a warning.
func TestLeftWarning(t *testing.T) {
	for _, c := range []struct {
		name   string
		left   Left
		msg    string
		fields string
	}{
		{"stop, wrapper's child", Left{Code: 143, Stopping: true, ChildPid: 77, ChildComm: "node", Count: 5, App: "sh"},
			"the app (sh) exited 143; its child node (pid 77) still runs: exec it (README, Wrappers); tend drains it now",
			"[code=143 child_pid=77]"},
		{"stop, no child in the group", Left{Code: 143, Stopping: true, Count: 3, App: "sh"}, "", "[]"},
		{"own exit, wrapper's child", Left{Code: 0, ChildPid: 77, ChildComm: "node", Count: 3, App: "sh"},
			"the app exited 0 and left 3 processes running: is it daemonising? Its child node (pid 77) is still in the process group of the app (sh): a wrapper that did not exec it? (run it in the foreground, or exec it: README, Wrappers; tend drains what is left now)",
			"[code=0 left=3 child_pid=77]"},
		{"own exit, one left", Left{Code: 0, Count: 1, App: "nginx"},
			"the app exited 0 and left 1 process running: is it daemonising? (run it in the foreground; tend drains what is left now)",
			"[code=0 left=1]"},
		{"own exit, many left", Left{Code: 2, Count: 4, App: "nginx"},
			"the app exited 2 and left 4 processes running: is it daemonising? (run it in the foreground; tend drains what is left now)",
			"[code=2 left=4]"},
		{"own exit, count unknown", Left{Code: 0, Count: -1, App: "nginx"},
			"the app exited 0 and left processes running: is it daemonising? (run it in the foreground; tend drains what is left now)",
			"[code=0 left=-1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, fields := c.left.Warning()
			if msg != c.msg {
				t.Errorf("message\n got %q\nwant %q", msg, c.msg)
			}
			if got := fmt.Sprint(attrs(fields)); got != c.fields {
				t.Errorf("fields %s, want %s", got, c.fields)
			}
		})
	}
}

func attrs(fields []slog.Attr) []string {
	out := []string{}
	for _, a := range fields {
		out = append(out, a.String())
	}
	return out
}

// TestAppName: the app's program as its command name reads, "?" for none.
func TestAppName(t *testing.T) {
	for args, want := range map[*[]string]string{
		{"/bin/sh", "-c", "x"}: "sh",
		{"nginx"}:              "nginx",
		{}:                     "?",
	} {
		if got := AppName(*args); got != want {
			t.Errorf("AppName(%q) = %q, want %q", *args, got, want)
		}
	}
}
