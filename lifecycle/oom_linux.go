package lifecycle

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// oomWatch follows the kernel's count of OOM kills in tend's memory cgroup
// (oom_kill in cgroup v2's memory.events, v1's memory.oom_control), so that
// tend can say when one of its processes was OOM-killed: a SIGKILL alone
// does not tell. It is read on the loop goroutine only: when a process
// tend reaps died of SIGKILL, every heartbeat, and at the end.
type oomWatch struct {
	file  string // "" when no memory cgroup was found
	limit string // memory.max or memory.limit_in_bytes
	seen  uint64 // the count at the last look
	// appKilled is set when the app died of SIGKILL while the count rose:
	// the termination message says so.
	appKilled bool
}

// watchOOM lowers tend's score as PID 1 (oomscore_linux.go) and finds the
// memory cgroup's files. Neither is needed to run: what fails is logged.
func (l *Loop) watchOOM() {
	dir, v2, err := memoryCgroup("/proc/self/cgroup", "/proc/self/mountinfo")
	w := &l.oom
	if err == nil {
		w.file, w.limit = filepath.Join(dir, "memory.oom_control"), filepath.Join(dir, "memory.limit_in_bytes")
		if v2 {
			w.file, w.limit = filepath.Join(dir, "memory.events"), filepath.Join(dir, "memory.max")
		}
	}
	if l.pid1OOMScore() {
		l.arrangeOOMScore(limitBytes(w.limit))
	}
	if err != nil {
		l.log.With(errField(err)).Debugf("OOM kills will not be reported: %v", err)
		return
	}
	n, err := oomKills(w.file)
	if err != nil {
		l.log.With(errField(err)).Debugf("OOM kills will not be reported: %v", err)
		w.file = ""
		return
	}
	w.seen = n
	l.log.Debugf("OOM kills counted from %s (oom_kill %d)", w.file, n)
}

// noteExit looks at the count when a process tend reaped died of SIGKILL,
// the signal the OOM killer sends. app names the app's command when it
// was the app.
func (l *Loop) noteExit(e reaper.Exit, app string) {
	if e.Status.Signaled() && e.Status.Signal() == unix.SIGKILL {
		l.checkOOM(e.Pid, app)
	}
}

// checkOOM logs the kills since the last look: as pid's (app's) when it is
// given, a process that died of SIGKILL meanwhile.
func (l *Loop) checkOOM(pid int, app string) {
	w := &l.oom
	if w.file == "" {
		return
	}
	n, err := oomKills(w.file)
	if err != nil || n <= w.seen {
		return // unreadable now: the next look tells
	}
	rose := n - w.seen
	w.seen = n
	limit := cgroupLimit(w.limit)
	attrs := []slog.Attr{slog.Uint64("oom_kills", n), slog.String("limit", limit)}
	fields := l.log.With(attrs...)
	switch {
	case pid != 0 && app != "":
		w.appKilled = true
		l.log.With(append(attrs, appPidField(pid))...).Warnf("the app (pid %d, %q) was killed by the OOM killer: tend's memory cgroup is at its limit (%s; oom_kill %d)", pid, app, limit, n)
	case pid != 0:
		l.log.With(append(attrs, slog.Int("pid", pid))...).Warnf("pid %d was killed by the OOM killer: tend's memory cgroup is at its limit (%s; oom_kill %d)", pid, limit, n)
	default:
		fields.Warnf("the OOM killer killed %d process(es) in tend's memory cgroup, not children of tend or not yet reaped (limit %s; oom_kill %d)", rose, limit, n)
		return
	}
	if rose > 1 {
		fields.Warnf("the OOM killer killed %d more process(es) in tend's memory cgroup", rose-1)
	}
}

// oomReason is the termination message when the app was OOM-killed and
// tend decided nothing else.
func (l *Loop) oomReason() string {
	if !l.oom.appKilled {
		return ""
	}
	return fmt.Sprintf("the app was killed by the OOM killer: its memory cgroup reached its limit (%s; oom_kill %d)", cgroupLimit(l.oom.limit), l.oom.seen)
}

// oomStatus adds the count to a snapshot, for tend_oom_kills_total.
func (l *Loop) oomStatus(st *health.Status) {
	if l.oom.file != "" {
		st.OOMKills, st.OOMKillsKnown = l.oom.seen, true
	}
}

// oomKills reads the oom_kill line of memory.events or memory.oom_control.
func oomKills(file string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s has no oom_kill line (a kernel before 4.13)", file)
}

// cgroupLimit is the limit in file as a person reads it.
func cgroupLimit(file string) string { return cgroupLimitBytes(limitBytes(file)) }

// limitBytes is the limit in file, 0 when there is none or it is unknown
// ("max", or v1's page-rounded LLONG_MAX).
func limitBytes(file string) uint64 {
	if file == "" {
		return 0
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n >= 1<<62 {
		return 0
	}
	return n
}

// cgroupLimitBytes is "24 MiB", or "none".
func cgroupLimitBytes(n uint64) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
}

// memoryCgroup finds the directory of tend's memory cgroup: the v1 line
// that lists the memory controller in cgroupFile, else the v2 line
// ("0::PATH"), joined to where that hierarchy is mounted (mountinfoFile),
// less the mount's own root, which a container's cgroup namespace or bind
// mount makes the cgroup's path or a prefix of it.
func memoryCgroup(cgroupFile, mountinfoFile string) (dir string, v2 bool, err error) {
	b, err := os.ReadFile(cgroupFile)
	if err != nil {
		return "", false, err
	}
	var path string
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				path, v2, found = parts[2], false, true
			}
		}
		if !found && parts[0] == "0" && parts[1] == "" {
			path, v2 = parts[2], true
		}
	}
	if path == "" {
		return "", false, fmt.Errorf("%s names no memory cgroup", cgroupFile)
	}
	f, err := os.Open(mountinfoFile)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 >= len(fields) {
			continue
		}
		root, mnt, fstype, opts := fields[3], fields[4], fields[sep+1], fields[sep+3]
		switch {
		case v2 && fstype == "cgroup2":
		case !v2 && fstype == "cgroup" && hasOpt(opts, "memory"):
		default:
			continue
		}
		rel := path
		if root != "/" {
			rel = strings.TrimPrefix(path, root)
		}
		return filepath.Join(unescapeMount(mnt), rel), v2, nil
	}
	return "", false, fmt.Errorf("the memory cgroup %s is not mounted", path)
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return u
	}
	return s
}
