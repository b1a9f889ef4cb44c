package termination

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
)

// Left is what the app left running when it exited, as the drain finds it;
// Warning words what tend says of it at the default verbosity.
type Left struct {
	Code      int    // the app's exit code
	Stopping  bool   // a stop was under way when the app exited
	ChildPid  int    // a process still in the app's process group; 0 for none
	ChildComm string // its command name
	Count     int    // processes left but tend, -1 when unknown; read only when not Stopping
	App       string // the app's program (AppName)
}

// Warning is the warning and its log fields: a process still in the app's
// process group is its child, the real server behind a wrapper that did
// not exec it (dash's `sh -c "node server.js"`, apache2ctl), stop or no
// stop; otherwise, after an app that exited on its own, usually a server
// that daemonised (nginx without `daemon off;`: its worker left the group
// with setsid), whose real process tend is about to drain while the app's
// 0 reads as success. msg is "" when there is nothing to warn of.
func (l Left) Warning() (msg string, fields []slog.Attr) {
	code, child := slog.Int("code", l.Code), slog.Int("child_pid", l.ChildPid)
	if l.ChildPid > 0 && l.Stopping {
		return fmt.Sprintf("the app (%s) exited %d; its child %s (pid %d) still runs: exec it (README, Wrappers); tend drains it now", l.App, l.Code, l.ChildComm, l.ChildPid),
			[]slog.Attr{code, child}
	}
	if l.Stopping {
		return "", nil
	}
	left, count := "processes", slog.Int("left", l.Count)
	switch {
	case l.Count == 1:
		left = "1 process"
	case l.Count > 1:
		left = strconv.Itoa(l.Count) + " processes"
	}
	if l.ChildPid > 0 {
		// What tend sees: a child still in the app's group, which a
		// background job (`sleep 60 & exit 0`) leaves as well as a
		// wrapper does.
		return fmt.Sprintf("the app exited %d and left %s running: is it daemonising? Its child %s (pid %d) is still in the process group of the app (%s): a wrapper that did not exec it? (run it in the foreground, or exec it: README, Wrappers; tend drains what is left now)", l.Code, left, l.ChildComm, l.ChildPid, l.App),
			[]slog.Attr{code, count, child}
	}
	return fmt.Sprintf("the app exited %d and left %s running: is it daemonising? (run it in the foreground; tend drains what is left now)", l.Code, left),
		[]slog.Attr{code, count}
}

// AppName is the app's program, as its command name would read.
func AppName(args []string) string {
	if len(args) == 0 {
		return "?"
	}
	return filepath.Base(args[0])
}
