package hooks

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// gate is a writer that blocks until opened: a stdout nobody reads.
type gate struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gate) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// TestRelayDropsWhatAStuckStreamCannotTake: with stdout stuck, writes to the
// Relay never block; what exceeds its queue is dropped, Flush gives up at
// its deadline, and once the stream moves again everything queued comes
// out, followed by a note with the exact count of dropped bytes, on each
// stream that lost some.
func TestRelayDropsWhatAStuckStreamCannotTake(t *testing.T) {
	out, errw := &gate{open: make(chan struct{})}, &gate{open: make(chan struct{})}
	close(errw.open)
	r := NewRelay(out, errw)
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	wrote := make(chan struct{})
	go func() {
		for i := 0; i < 10; i++ { // 320 KiB into a 128 KiB queue
			r.write(0, chunk)
		}
		r.write(1, []byte("to stderr\n"))
		close(wrote)
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("a write to the Relay blocked on a stuck stream")
	}
	began := time.Now()
	r.Flush(time.Now().Add(50 * time.Millisecond))
	if el := time.Since(began); el > 5*time.Second {
		t.Fatalf("Flush waited %s for a stuck stream, past its deadline", el)
	}
	close(out.open)
	// The note is queued once the queue has emptied: wait for it.
	var got string
	for deadline := time.Now().Add(10 * time.Second); !strings.HasSuffix(got, "keep up]\n"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no note after the drops: ...%q", got[max(0, len(got)-100):])
		}
		got = out.String()
	}
	kept := strings.Count(got, "x")
	if kept == 0 || kept > relayQueue {
		t.Fatalf("kept %d bytes, want 1..%d", kept, relayQueue)
	}
	note := fmt.Sprintf("[tend: %d bytes of hook output dropped: stdout did not keep up]\n", 10*len(chunk)-kept)
	if !strings.HasSuffix(got, note) || len(got) != kept+len(note) {
		t.Fatalf("want %d bytes then the note %q, got %d bytes ending %q", kept, note, len(got), got[max(0, len(got)-100):])
	}
	// One queue serves both streams, in order: stderr's line came while
	// stdout's bytes filled it.
	if want := "[tend: 10 bytes of hook output dropped: stderr did not keep up]\n"; errw.String() != want {
		t.Fatalf("stderr got %q, want %q", errw.String(), want)
	}
}

// TestRelayNoteComesWhereOutputWentMissing: output that comes after a drop
// follows the note, so the log shows where the gap is.
func TestRelayNoteComesWhereOutputWentMissing(t *testing.T) {
	out := &gate{open: make(chan struct{})}
	r := NewRelay(out, &gate{open: make(chan struct{})})
	r.write(0, bytes.Repeat([]byte("a"), relayQueue))
	r.write(0, []byte("lost\n"))
	close(out.open)
	r.Flush(time.Now().Add(10 * time.Second))
	r.write(0, []byte("later\n"))
	r.Flush(time.Now().Add(10 * time.Second))
	want := strings.Repeat("a", relayQueue) + "[tend: 5 bytes of hook output dropped: stdout did not keep up]\n" + "later\n"
	if got := out.String(); got != want {
		t.Fatalf("got ...%q", got[max(0, len(got)-120):])
	}
}
