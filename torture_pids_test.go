package main_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/oom"
)

// TestTorturePidLimit runs tend as PID 1 in a pids cgroup whose limit a
// fork bomb keeps full, then sends TERM: tend must reap, forward the TERM,
// drain and exit with the app's code, and must not have created a single
// thread after the app started (CONVENTIONS B.13: under a full limit a new
// thread is "fatal error: newosproc"). Only tend's tree is in the cgroup,
// not the test. Odd runs add everything that makes tend busy: the health
// server scraped in a loop, probes, a pre-stop hook, orphans to reap.
func TestTorturePidLimit(t *testing.T) {
	const (
		limit = 40
		code  = 7 // the bomb's exit code on TERM
	)
	cg := newPidsCgroup(t, limit)
	runs := scale(4, 20)
	bombFor := time.Duration(scale(1500, 10000)) * time.Millisecond
	failed := 0
	for i := 0; i < runs; i++ {
		busy := i%2 == 1
		if err := pidLimitRun(t, cg, busy, bombFor, code); err != nil {
			failed++
			t.Errorf("run %d of %d (busy=%v): %v", i+1, runs, busy, err)
		}
	}
	report(t, "full pid limit (fork bomb, pids.max=40)", fmt.Sprintf("%d of %d runs exited with the app's code, %s of bombing each", runs-failed, runs, bombFor), "all")
}

// pidLimitRun is one run; it returns what went wrong.
func pidLimitRun(t *testing.T, cg *pidsCgroup, busy bool, bombFor time.Duration, code int) error {
	args := `"$TEND" --`
	bomb := `"$FAKEAPP" forkbomb ` + strconv.Itoa(code) + ` 1s`
	if busy {
		args = `"$TEND" -vv --health-addr 127.0.0.1:0 --pre-stop true --ready-probe true --probe-period 50ms --`
		bomb += " orphans"
	}
	before := cg.events()
	p := startTend(t, opts{shell: fmt.Sprintf(`echo $$ > %s && exec unshare -pf --mount-proc %s %s`, cg.file("cgroup.procs"), args, bomb)})
	tend := p.childOf(p.pid) // p.pid is unshare
	p.stdout.wait(t, "bombing", 10*time.Second)
	threads := taskCount(tend)
	if threads <= 0 {
		return fmt.Errorf("cannot count tend's threads")
	}
	stop := func() {}
	if busy {
		line := p.stderr.wait(t, "health endpoint on ", 5*time.Second)
		stop = scrapeLoop(strings.TrimPrefix(line[strings.Index(line, "http://"):], "http://"))
	}
	// The limit must really be reached, and stay reached while tend works.
	deadline := time.Now().Add(10 * time.Second)
	for cg.events() == before {
		if time.Now().After(deadline) {
			stop()
			return errors.New("the bomb never reached the pid limit")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-p.done:
	case <-time.After(bombFor):
	}
	after := taskCount(tend)
	_ = syscall.Kill(tend, syscall.SIGTERM) // ESRCH if it died: reported below
	got := p.wait(60 * time.Second)
	stop()
	stderr := p.stderr.String()
	switch {
	case strings.Contains(stderr, "newosproc") || strings.Contains(stderr, "fatal error"):
		return fmt.Errorf("tend crashed (exit %d):\n%s", got, tail(stderr, 15))
	case got != code:
		return fmt.Errorf("exit code %d, want the app's %d; stderr:\n%s", got, code, tail(stderr, 15))
	case after != threads:
		return fmt.Errorf("tend had %d threads when the app started and %d under the full limit", threads, after)
	}
	return nil
}

// TestTortureThreadsFixedAfterStart checks, without a pid limit, that tend never
// creates a thread once the app has started, however busy it is: hooks,
// probes every 20 ms, /metrics and /readyz scraped back to back, and a
// signal to forward every millisecond. Any thread created later is one
// that a full pid limit would have turned into "fatal error: newosproc".
func TestTortureThreadsFixedAfterStart(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--post-start", "true", "--pre-stop", "true",
		"--ready-probe", "true", "--live-probe", "http://"+addr+"/livez", "--probe-period", "20ms",
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 10*time.Second) // post-start done, probes passing
	before := taskCount(p.pid)
	stop := scrapeLoop(addr)
	d := time.Duration(scale(1500, 30000)) * time.Millisecond
	sent := 0
	for end := time.Now().Add(d); time.Now().Before(end); sent++ {
		p.signal(syscall.SIGUSR1)
		p.signal(syscall.SIGWINCH)
		time.Sleep(time.Millisecond)
	}
	stop()
	after := taskCount(p.pid)
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	report(t, "threads under load", fmt.Sprintf("%d when the app started, %d after %s of scrapes, probes and %d signal pairs", before, after, d, sent), "unchanged")
	if before <= 0 || after != before {
		t.Fatalf("tend had %d threads when the app started and %d after the load", before, after)
	}
}

// scrapeLoop GETs /metrics and /readyz from addr back to back, on a connection
// each, until the returned func is called.
func scrapeLoop(addr string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, path := range []string{"/metrics", "/metrics", "/readyz"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			for {
				select {
				case <-done:
					return
				default:
				}
				if r, err := c.Get("http://" + addr + path); err == nil {
					_, _ = io.Copy(io.Discard, r.Body) // only the load matters
					_ = r.Body.Close()
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

func tail(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// taskCount is the number of threads of pid, or -1.
func taskCount(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// pidsCgroup is a pids cgroup made for one test and removed after it.
type pidsCgroup struct {
	dir string
	v2  bool
}

func (c *pidsCgroup) file(name string) string { return filepath.Join(c.dir, name) }

// events is how often fork has failed at the limit so far ("max N").
func (c *pidsCgroup) events() int {
	return keyedCount(c.file("pids.events"), "max")
}

// keyedCount is oom.KeyedCount (pids.events, memory.events,
// memory.oom_control); 0 when the file or the key is missing.
func keyedCount(path, key string) int {
	n, _ := oom.KeyedCount(path, key) // gone: the cgroup was removed, nothing counted
	return int(n)
}

// newPidsCgroup makes a pids cgroup with pids.max = max: under cgroup v2
// when /sys/fs/cgroup is a writable v2 hierarchy with the pids controller,
// else under v1's /sys/fs/cgroup/pids. It skips the test when neither can
// be written, and removes the cgroup, killing what is left in it, at the
// end.
func newPidsCgroup(t *testing.T, max int) *pidsCgroup {
	t.Helper()
	name := fmt.Sprintf("tend-pidtest-%d", os.Getpid())
	var c *pidsCgroup
	var why []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+pids"), 0)
		if err == nil {
			err = os.Mkdir(filepath.Join("/sys/fs/cgroup", name), 0o755)
		}
		if err == nil {
			c = &pidsCgroup{dir: filepath.Join("/sys/fs/cgroup", name), v2: true}
		} else {
			why = append(why, "cgroup v2: "+err.Error())
		}
	}
	if c == nil {
		root := "/sys/fs/cgroup/pids"
		if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
			why = append(why, "cgroup v1: no pids hierarchy at "+root)
		} else if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
			why = append(why, "cgroup v1: "+err.Error())
		} else {
			c = &pidsCgroup{dir: filepath.Join(root, name)}
		}
	}
	if c == nil {
		t.Skipf("no writable pids cgroup (needs root and a pids controller): %s", strings.Join(why, "; "))
	}
	t.Cleanup(func() { c.remove(t) })
	if err := os.WriteFile(c.file("pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		t.Fatalf("setting pids.max: %v", err)
	}
	return c
}

// remove kills whatever is left in the cgroup and removes it. Cleanups run
// after the test's own, so tend has normally taken its namespace down.
func (c *pidsCgroup) remove(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(c.file("cgroup.procs"))
		pids := strings.Fields(string(b))
		for _, s := range pids {
			if pid, err := strconv.Atoi(s); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL) // ESRCH: already gone
			}
		}
		err := os.Remove(c.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("removing %s: %v (left: %v)", c.dir, err, pids)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
