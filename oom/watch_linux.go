// Package oom keeps tend out of the OOM killer's way and says when it
// struck: tend's oom_score_adj as PID 1 and the one each process it starts
// gets (score_linux.go), and the kernel's count of OOM kills in tend's
// memory cgroup. The loop calls it; it decides nothing about the app.
package oom

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// Watch follows the kernel's count of OOM kills in tend's memory cgroup
// (oom_kill in cgroup v2's memory.events, v1's memory.oom_control), so that
// tend can say when one of its processes was OOM-killed: a SIGKILL alone
// does not tell. It is read on the loop goroutine only: when a process
// tend reaps died of SIGKILL, every heartbeat, and at the end. The zero
// Watch watches nothing.
type Watch struct {
	log   *logger.Logger
	file  string // "" when no memory cgroup was found
	limit string // memory.max or memory.limit_in_bytes
	seen  uint64 // the count at the last look
	// appKilled is set when the app died of SIGKILL while the count rose:
	// the termination message says so.
	appKilled bool
}

// Start lowers tend's score when pid1 (score_linux.go; aroundFork is the
// reaper's hook around each fork) and finds the memory cgroup's files.
// Neither is needed to run: what fails is logged. Call it before anything
// starts: every child then gets tend's original oom_score_adj.
func (w *Watch) Start(log *logger.Logger, pid1 bool, aroundFork func(func() (after func()))) {
	w.log = log
	dir, v2, err := memoryCgroup("/proc/self/cgroup", "/proc/self/mountinfo")
	if err == nil {
		w.file, w.limit = filepath.Join(dir, "memory.oom_control"), filepath.Join(dir, "memory.limit_in_bytes")
		if v2 {
			w.file, w.limit = filepath.Join(dir, "memory.events"), filepath.Join(dir, "memory.max")
		}
	}
	// Only as PID 1, whose death ends the container. Under -s or a
	// wrapper, tend's death orphans the app but ends nothing, and the
	// wrapper decides.
	if pid1 {
		arrangeScore(log, limitBytes(w.limit), aroundFork)
	}
	if err != nil {
		log.With(errField(err)).Debugf("OOM kills will not be reported: %v", err)
		return
	}
	n, err := kills(w.file)
	if err != nil {
		log.With(errField(err)).Debugf("OOM kills will not be reported: %v", err)
		w.file = ""
		return
	}
	w.seen = n
	log.Debugf("OOM kills counted from %s (oom_kill %d)", w.file, n)
}

// errField is lifecycle's errField: one key for an error in every JSON line.
func errField(err error) slog.Attr { return slog.String("error", err.Error()) }

// Exit looks at the count when a process tend reaped died of SIGKILL,
// the signal the OOM killer sends. app names the app's command when it
// was the app.
func (w *Watch) Exit(e reaper.Exit, app string) {
	if e.Status.Signaled() && e.Status.Signal() == unix.SIGKILL {
		w.look(e.Pid, app)
	}
}

// Look logs the kills since the last look (the heartbeat, the end).
func (w *Watch) Look() { w.look(0, "") }

// look logs the kills since the last look: as pid's (app's) when it is
// given, a process that died of SIGKILL meanwhile.
func (w *Watch) look(pid int, app string) {
	if w.file == "" {
		return
	}
	n, err := kills(w.file)
	if err != nil || n <= w.seen {
		return // unreadable now: the next look tells
	}
	rose := n - w.seen
	w.seen = n
	limit := cgroupLimit(w.limit)
	attrs := []slog.Attr{slog.Uint64("oom_kills", n), slog.String("limit", limit)}
	fields := w.log.With(attrs...)
	switch {
	case pid != 0 && app != "":
		w.appKilled = true
		w.log.With(append(attrs, slog.Int("app_pid", pid))...).Warnf("the app (pid %d, %q) was killed by the OOM killer: tend's memory cgroup is at its limit (%s; oom_kill %d)", pid, app, limit, n)
	case pid != 0:
		w.log.With(append(attrs, slog.Int("pid", pid))...).Warnf("pid %d was killed by the OOM killer: tend's memory cgroup is at its limit (%s; oom_kill %d)", pid, limit, n)
	default:
		fields.Warnf("the OOM killer killed %d process(es) in tend's memory cgroup, not children of tend or not yet reaped (limit %s; oom_kill %d)", rose, limit, n)
		return
	}
	if rose > 1 {
		fields.Warnf("the OOM killer killed %d more process(es) in tend's memory cgroup", rose-1)
	}
}

// Reason is the termination message when the app was OOM-killed and tend
// decided nothing else; "" otherwise.
func (w *Watch) Reason() string {
	if !w.appKilled {
		return ""
	}
	return fmt.Sprintf("the app was killed by the OOM killer: its memory cgroup reached its limit (%s; oom_kill %d)", cgroupLimit(w.limit), w.seen)
}

// Kills is the count at the last look, for tend_oom_kills_total, and
// whether there is one.
func (w *Watch) Kills() (n uint64, known bool) { return w.seen, w.file != "" }

// kills reads the oom_kill line of memory.events or memory.oom_control.
func kills(file string) (uint64, error) {
	n, err := KeyedCount(file, "oom_kill")
	if errors.Is(err, errNoKey) {
		return 0, fmt.Errorf("%s has no oom_kill line (a kernel before 4.13)", file)
	}
	return n, err
}

// errNoKey is KeyedCount's answer for a file without the key.
var errNoKey = errors.New("no such key")

// KeyedCount reads the number after "KEY " in a cgroup's keyed file
// (memory.events, memory.oom_control, pids.events).
func KeyedCount(file, key string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: %w %q", file, errNoKey, key)
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
