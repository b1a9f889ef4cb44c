package health

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// fakeClock is a procCache clock that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeProc writes a /proc-like tree: one stat file per pid and state, and a
// few entries that are not processes.
func fakeProc(t *testing.T, states map[int]string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"self", "sys", "1x"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for pid, state := range states {
		dir := filepath.Join(root, fmt.Sprint(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// A name with ") Z (" in it: only the last ')' ends the name.
		stat := fmt.Sprintf("%d (we) Z (ird) %s 1 %d %d 0 -1 4194560 %s\n", pid, state, pid, pid, strings.Repeat("0 ", 40))
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func testCache(root string, clock *fakeClock) *procCache {
	c := newProcCache()
	c.root, c.now = root, clock.now
	return c
}

// TestProcCacheRefresh: /proc is walked at most once per procRefresh.
func TestProcCacheRefresh(t *testing.T) {
	root := fakeProc(t, map[int]string{1: "S", 7: "Z", 12: "R", 400: "Z", 4000: "D"})
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	c := testCache(root, clock)
	check := func(step string, procs, zombies int, refreshes uint64) {
		t.Helper()
		v, ok := c.get()
		c.mu.Lock()
		n := c.refreshes
		c.mu.Unlock()
		if !ok || v.procs != procs || v.zombies != zombies || n != refreshes {
			t.Fatalf("%s: %+v %v after %d walks, want %d processes, %d zombies after %d walks", step, v, ok, n, procs, zombies, refreshes)
		}
	}
	check("first scrape", 5, 2, 1)
	if err := os.RemoveAll(filepath.Join(root, "400")); err != nil {
		t.Fatal(err)
	}
	clock.advance(procRefresh - time.Millisecond)
	check("second scrape within the interval", 5, 2, 1)
	clock.advance(time.Millisecond)
	check("after the interval", 4, 1, 2)
	check("right after", 4, 1, 2)

	// Not readable: the figures are left out, and retried only after the
	// interval, not on every scrape.
	c = testCache(filepath.Join(root, "missing"), clock)
	for i := 0; i < 3; i++ {
		if _, ok := c.get(); ok {
			t.Fatal("figures from a missing /proc")
		}
	}
	if c.refreshes != 1 {
		t.Fatalf("%d walks of a missing /proc", c.refreshes)
	}
}

// TestProcCacheSingleFlight: a scrape that finds a walk in flight serves the
// previous figures at once instead of walking /proc as well.
func TestProcCacheSingleFlight(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	c := testCache(fakeProc(t, map[int]string{1: "S", 2: "Z"}), clock)
	if v, ok := c.get(); !ok || v.procs != 2 {
		t.Fatalf("first: %+v %v", v, ok)
	}
	inWalk, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) }) // frees the walk if the test fails first
	var calls atomic.Int32
	walk := c.walk
	c.walk = func(root string, buf []byte) (procCounts, error) {
		if calls.Add(1) > 1 {
			return procCounts{}, errors.New("a second walk while one is in flight")
		}
		close(inWalk)
		<-release
		v, err := walk(root, buf)
		v.procs += 100 // tells this walk's figures from the first's
		return v, err
	}
	clock.advance(procRefresh)
	slow := make(chan procCounts)
	go func() {
		v, _ := c.get()
		slow <- v
	}()
	<-inWalk
	for i := 0; i < 10; i++ { // would deadlock if these waited or walked
		if v, ok := c.get(); !ok || v.procs != 2 {
			t.Fatalf("during the walk: %+v %v", v, ok)
		}
	}
	once.Do(func() { close(release) })
	if v := <-slow; v.procs != 102 {
		t.Fatalf("the walk's own scrape got %+v", v)
	}
	if v, _ := c.get(); v.procs != 102 || c.refreshes != 2 {
		t.Fatalf("after the walk: %+v, %d walks", v, c.refreshes)
	}
}

// TestCountProcsReal counts the real /proc in a helper process, which has
// a zombie child that nothing else in it can reap: in this test binary a
// reaper goroutine of another test might.
func TestCountProcsReal(t *testing.T) {
	if os.Getenv("TEND_PROBE_ZOMBIE_HELPER") == "1" {
		zombieHelper()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCountProcsReal$")
	cmd.Env = append(os.Environ(), "TEND_PROBE_ZOMBIE_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var procs, zombies, want int
	if _, err := fmt.Sscanf(lastLine(string(out)), "procs=%d zombies=%d procfs=%d", &procs, &zombies, &want); err != nil {
		t.Fatalf("helper said %q: %v", out, err)
	}
	t.Logf("/proc: %d processes (procfs.AllProcs: %d), %d zombies", procs, want, zombies)
	if zombies < 1 {
		t.Errorf("the helper's zombie child was not counted")
	}
	// Processes come and go on a shared machine between the two walks.
	if procs < 3 || procs < want/2 || procs > want*2 {
		t.Errorf("%d processes, procfs.AllProcs says %d", procs, want)
	}
}

// zombieHelper starts a child that exits at once, waits without reaping it
// (WNOWAIT) until it is a zombie, and prints the counts.
func zombieHelper() {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		fmt.Println("waitid:", err)
		os.Exit(1)
	}
	v, err := countProcs("/proc", make([]byte, 512))
	if err != nil {
		fmt.Println("count:", err)
		os.Exit(1)
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		fmt.Println("procfs:", err)
		os.Exit(1)
	}
	all, err := fs.AllProcs()
	if err != nil {
		fmt.Println("procfs:", err)
		os.Exit(1)
	}
	_ = cmd.Wait() // reaps the zombie; its status is not the point
	fmt.Printf("procs=%d zombies=%d procfs=%d\n", v.procs, v.zombies, len(all))
	os.Exit(0)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestScrapesShareWalk: through the server, scrapes within procRefresh of
// each other, even concurrent ones, walk /proc once between them.
func TestScrapesShareWalk(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	s, _ := serveTest(t, func(s *Server) { s.procs.now, s.metrics.now = clock.now, clock.now })
	req := "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
	scrapeAll := func() {
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, resp, err := roundTrip(s.Addr().String(), req, 5*time.Second)
				if code != 200 {
					t.Errorf("/metrics: %d %v", code, err)
					return
				}
				// The body is already in memory: ReadAll cannot fail.
				if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "tend_namespace_zombies ") {
					t.Errorf("no namespace figures in\n%s", b)
				}
			}()
		}
		wg.Wait()
	}
	walks := func() uint64 {
		s.procs.mu.Lock()
		defer s.procs.mu.Unlock()
		return s.procs.refreshes
	}
	scrapeAll()
	if n := walks(); n != 1 {
		t.Fatalf("8 scrapes walked /proc %d times", n)
	}
	clock.advance(procRefresh)
	scrapeAll()
	if n := walks(); n != 2 {
		t.Fatalf("8 scrapes after the interval: %d walks in all, want 2", n)
	}
}

// BenchmarkProcWalk compares one walk of /proc, as the cache does it, with
// the procfs.AllProcs plus Stat walk that every scrape used to do. Start a
// few thousand sleeps first to see the difference the cache was made for.
func BenchmarkProcWalk(b *testing.B) {
	b.Run("countProcs", func(b *testing.B) {
		buf := make([]byte, 512)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := countProcs("/proc", buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("procfs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fs, err := procfs.NewDefaultFS()
			if err != nil {
				b.Fatal(err)
			}
			procs, err := fs.AllProcs()
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range procs {
				_, _ = p.Stat() // as the old procMetrics: a failure only means not a zombie
			}
		}
	})
}
