package health

import (
	"sync"
	"time"
)

// A rendering of /metrics is reused, whole, for the scrapes that follow it
// closely: rendering reads /proc/self (its fd directory lists every open
// connection) and formats some hundred lines, about 80 KB of allocation and
// a millisecond or more of tend's one P. 10,000 /metrics requests whose
// answers nobody read rendered 10,000 times, one after another, and held
// /livez for 1.4-1.7 s. Now a burst costs one rendering; each request
// costs what a /livez does.
const (
	// metricsMaxAge is how long a rendering serves scrapes of the snapshot
	// it rendered: the loop republishes every second, and /proc figures
	// are cached as long (procRefresh).
	metricsMaxAge = time.Second
	// metricsMinAge is how long a rendering serves every scrape, even of a
	// newer snapshot: a storm of events republishes the snapshot far more
	// often than a scraper needs a new rendering.
	metricsMinAge = 100 * time.Millisecond
)

// metricsCache holds the last rendering of /metrics as the whole answer to
// a GET, and the HEAD answer beside it.
type metricsCache struct {
	// render admits one rendering at a time; scrapes that arrive
	// meanwhile wait for it (parked, so they cost no CPU) and take its
	// result. /livez and /readyz never take it.
	render sync.Mutex
	now    func() time.Time // the clock; nil is time.Now (tests set it)

	mu        sync.Mutex // guards the fields below
	st        *Status    // the snapshot rendered
	at        time.Time
	get, head []byte
	renders   uint64 // renderings done, for tests
}

// metricsAnswer returns the answer to a GET or HEAD of /metrics for st,
// from the cache when it is fresh enough, else from one new rendering.
// The bytes are shared: callers only write them.
func (s *Server) metricsAnswer(st *Status, head bool) []byte {
	c := &s.metrics
	if b, ok := c.cached(st, head); ok {
		return b
	}
	c.render.Lock()
	defer c.render.Unlock()
	if b, ok := c.cached(st, head); ok {
		return b // rendered while this scrape waited
	}
	body := metrics(st, s.procs, s.version)
	const ctype = "text/plain; version=0.0.4; charset=utf-8"
	get, hd := response(200, ctype, "", len(body), body), response(200, ctype, "", len(body), "")
	c.mu.Lock()
	c.st, c.at, c.get, c.head = st, c.clock(), get, hd
	c.renders++
	c.mu.Unlock()
	if head {
		return hd
	}
	return get
}

// cached returns the cached answer if it may serve a scrape of st now.
func (c *metricsCache) cached(st *Status, head bool) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	age := c.clock().Sub(c.at)
	if c.get == nil || age >= metricsMaxAge || c.st != st && age >= metricsMinAge {
		return nil, false
	}
	if head {
		return c.head, true
	}
	return c.get, true
}

func (c *metricsCache) clock() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}
