package health

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// procRefresh is how long the namespace figures are served from the cache.
// Walking /proc costs tens of milliseconds and a blocking syscall per
// process (about 33 ms with 2,000 processes, against 110 ms for procfs's
// AllProcs plus Stat); at one walk a second, however often /metrics is
// scraped, the cost stays that of one slow scraper.
const procRefresh = time.Second

// procChunk is how many /proc entries are read at a time, so that a walk
// holds a few KiB, not a name per process in the namespace.
const procChunk = 128

// procCounts are the namespace figures of one walk of /proc.
type procCounts struct {
	procs, zombies int
}

// procCache serves procCounts at most procRefresh old. One walk runs at a
// time: a scrape that finds one running serves the previous figures, so
// concurrent scrapes neither queue nor each start a thread walking /proc.
type procCache struct {
	root string           // "/proc"; a fake tree in tests
	now  func() time.Time // the clock, injectable for tests
	walk func(root string, buf []byte) (procCounts, error)

	refresh sync.Mutex // held by the one walk in flight; guards buf
	buf     []byte     // reused for each /proc/PID/stat

	mu        sync.Mutex // guards the fields below
	counts    procCounts
	ok        bool // counts hold a successful walk
	at        time.Time
	refreshes uint64 // walks done, for tests
}

func newProcCache() *procCache {
	return &procCache{root: "/proc", now: time.Now, walk: countProcs, buf: make([]byte, 512)}
}

// get returns the namespace figures, and false when /proc cannot be read.
func (c *procCache) get() (procCounts, bool) {
	v, ok, fresh, seen := c.cached()
	if fresh {
		return v, ok
	}
	if !c.refresh.TryLock() {
		if seen {
			return v, ok // a walk is in flight: the previous figures will do
		}
		// The first scrapes have nothing to fall back on: wait for the
		// walk in flight, whose figures are then fresh.
		c.refresh.Lock()
	}
	defer c.refresh.Unlock()
	if v, ok, fresh, _ := c.cached(); fresh {
		return v, ok // a walk finished while this scrape waited for the lock
	}
	v, err := c.walk(c.root, c.buf)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshes++
	c.at = c.now()
	// Figures that cannot be read are left out rather than served stale;
	// the failed walk still sets at, so a broken /proc is tried again
	// once per procRefresh, not on every scrape.
	c.counts, c.ok = v, err == nil
	return c.counts, c.ok
}

// cached returns the last figures, whether they are fresh enough to serve,
// and whether any walk has finished yet.
func (c *procCache) cached() (v procCounts, ok, fresh, seen bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return procCounts{}, false, false, false
	}
	return c.counts, c.ok, c.now().Sub(c.at) < procRefresh, true
}

// countProcs counts the processes under root, and those in state Z, while
// reading the directory in chunks and each stat file into buf: unlike
// procfs.AllProcs plus Stat, a walk's memory does not grow with the number
// of processes. A process whose stat cannot be read (it exited during the
// walk) is not counted.
func countProcs(root string, buf []byte) (procCounts, error) {
	d, err := os.Open(root)
	if err != nil {
		return procCounts{}, err
	}
	defer func() { _ = d.Close() }() // read-only: nothing to flush
	var n procCounts
	for {
		names, err := d.Readdirnames(procChunk)
		for _, name := range names {
			if !isPID(name) {
				continue
			}
			state, err := procState(root+"/"+name+"/stat", buf)
			if err != nil {
				continue // exited since the directory was read
			}
			n.procs++
			if state == 'Z' {
				n.zombies++
			}
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return procCounts{}, err
		}
	}
}

var errNoState = errors.New("no state in stat")

// procState reads a /proc/PID/stat file into buf and returns the state, the
// field after the command name. The name may hold ')' and spaces, so the
// state is found after the last ')'; the name is at most 64 bytes, so the
// first 512 bytes of the file always hold it.
func procState(path string, buf []byte) (byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	n, err := io.ReadFull(f, buf)
	_ = f.Close() // read-only: nothing to flush
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, err // also EOF or ESRCH: the process was reaped meanwhile
	}
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, errNoState
	}
	return b[i+2], nil
}

// isPID reports whether a /proc entry names a process: all digits.
func isPID(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}
