package hooks

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Relay passes hook commands' output on to tend's own stdout and stderr,
// where a user of tini or of a plain shell expects it: in the container
// log. A hook writes into a pipe that tend drains at once; a goroutine of
// the Relay's own copies what was read to tend's stream. When that stream
// is stuck (a pipe nobody reads), the copy blocks, not the hook: up to
// relayQueue bytes wait, the rest is dropped, and a note in the stream
// says how many bytes went missing once it moves again. So a stuck
// stdout can neither fail a hook nor hang a stop. Both streams share the
// queue, in the order the output came: behind a stuck stdout, stderr
// waits too (a log reader that stops usually stops reading both).
//
// The copying goroutine runs only while something is queued, and is the
// one goroutine that can block in write(2) for it (lifecycle's thread
// budget counts it). Build one Relay for the life of the process.
type Relay struct {
	dst   [2]io.Writer // stdout, stderr
	names [2]string

	mu       sync.Mutex
	queue    []chunk
	queued   int    // bytes in queue
	dropped  [2]int // bytes dropped per stream since its last note
	enqueued uint64 // chunks ever queued
	written  uint64 // chunks ever written (or failed to)
	progress chan struct{}
	running  bool // a copying goroutine is running
}

type chunk struct {
	to int
	b  []byte
}

// relayQueue bounds what waits for a slow stream: twice a pipe's default
// capacity.
const relayQueue = 128 << 10

// NewRelay returns a Relay to stdout and stderr.
func NewRelay(stdout, stderr io.Writer) *Relay {
	return &Relay{dst: [2]io.Writer{stdout, stderr}, names: [2]string{"stdout", "stderr"}, progress: make(chan struct{})}
}

// stream is a sink into one of the Relay's streams.
type stream struct {
	r  *Relay
	to int
}

func (s stream) take(p []byte) { s.r.write(s.to, p) }

// write queues a copy of p for stream to, or drops it when the queue is
// full. It never blocks on the stream.
func (r *Relay) write(to int, p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queued+len(p) > relayQueue {
		r.dropped[to] += len(p)
		return
	}
	// The note goes where the output went missing, before what follows.
	r.noteDrops(to)
	r.push(chunk{to: to, b: append([]byte(nil), p...)})
}

// noteDrops queues the note for stream to's dropped bytes, if any. Called
// with mu held. A note may take the queue a little past relayQueue.
func (r *Relay) noteDrops(to int) {
	if n := r.dropped[to]; n > 0 {
		r.dropped[to] = 0
		msg := fmt.Sprintf("[tend: %d bytes of hook output dropped: %s did not keep up]\n", n, r.names[to])
		r.push(chunk{to: to, b: []byte(msg)})
	}
}

// push queues c and makes sure a copying goroutine runs. Called with mu held.
func (r *Relay) push(c chunk) {
	r.queue = append(r.queue, c)
	r.queued += len(c.b)
	r.enqueued++
	if !r.running {
		r.running = true
		go r.run()
	}
}

// run copies queued chunks until the queue is empty, then ends.
func (r *Relay) run() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			// Bytes dropped with nothing queued after them: say so now.
			r.noteDrops(0)
			r.noteDrops(1)
		}
		if len(r.queue) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		c := r.queue[0]
		r.queue[0] = chunk{}
		r.queue = r.queue[1:]
		r.mu.Unlock()
		// What tend cannot write (a closed stdout: EPIPE) is lost, as the
		// hook's own write to that stream would have been.
		_, _ = r.dst[c.to].Write(c.b)
		r.mu.Lock()
		r.queued -= len(c.b)
		r.written++
		close(r.progress)
		r.progress = make(chan struct{})
		r.mu.Unlock()
	}
}

// Flush waits until everything queued before the call has been written, or
// until by. A hook's output then comes before what the app writes after the
// hook's result, such as its reaction to the stop signal pre-stop precedes.
func (r *Relay) Flush(by time.Time) {
	r.mu.Lock()
	target := r.enqueued
	r.mu.Unlock()
	t := time.NewTimer(time.Until(by))
	defer t.Stop()
	for {
		r.mu.Lock()
		if r.written >= target {
			r.mu.Unlock()
			return
		}
		ch := r.progress
		r.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}
