package probe

import (
	"errors"
	"testing"
	"time"
)

// TestAwait: what --wait-for awaits and says, when it ticks, and when it
// is done.
func TestAwait(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := NewAwait([]string{"db", "tcp://cache:6379"}, []string{"tcp://db:5432", "tcp://cache:6379"}, t0, 7*time.Second)
	if got := a.Awaited(); got != "waiting for db=tcp://db:5432, tcp://cache:6379" {
		t.Fatalf("awaited %q", got)
	}
	if got := a.Deadline(); !got.Equal(t0.Add(WaitProgress)) {
		t.Fatalf("first deadline %v, want the progress line's", got)
	}
	if to, pr, _ := a.Tick(t0.Add(time.Second)); to || pr {
		t.Fatalf("tick before any deadline: timeout %v, progress %v", to, pr)
	}
	a.Failed(0, errors.New("connection refused\n"))
	if got := a.StillFailing(); got != `db (connection refused\n), tcp://cache:6379 (no result yet)` {
		t.Fatalf("still failing %q", got)
	}
	if to, pr, waited := a.Tick(t0.Add(WaitProgress + 400*time.Millisecond)); to || !pr || waited != WaitProgress {
		t.Fatalf("progress tick: timeout %v, progress %v, waited %s", to, pr, waited)
	}
	if got := a.Deadline(); !got.Equal(t0.Add(7 * time.Second)) {
		t.Fatalf("deadline %v, want the timeout's", got)
	}
	if took, all := a.Up(1, t0.Add(1500*time.Millisecond)); took != 1500*time.Millisecond || all || a.Pending(1) || !a.Pending(0) {
		t.Fatalf("one up: took %s, all %v", took, all)
	}
	if got := a.Awaited(); got != "waiting for db=tcp://db:5432" {
		t.Fatalf("awaited %q", got)
	}
	if to, _, _ := a.Tick(t0.Add(7 * time.Second)); !to {
		t.Fatal("no timeout at the timeout")
	}
	if _, all := a.Up(0, t0.Add(8*time.Second)); !all {
		t.Fatal("every dependency up, not all")
	}
	a.End()
	if !a.Deadline().IsZero() {
		t.Fatalf("deadline %v after End", a.Deadline())
	}
	if a = NewAwait([]string{"db"}, []string{"tcp://db:5432"}, t0, 0); !a.Deadline().Equal(t0.Add(WaitProgress)) {
		t.Fatalf("no timeout: deadline %v", a.Deadline())
	}
	if to, _, _ := a.Tick(t0.Add(time.Hour)); to {
		t.Fatal("a timeout with no bound")
	}
}

// TestWaitLabel: NAME=SPEC, or the spec alone.
func TestWaitLabel(t *testing.T) {
	if got := WaitLabel("db", "tcp://db:5432"); got != "db=tcp://db:5432" {
		t.Errorf("named: %q", got)
	}
	if got := WaitLabel("tcp://db:5432", "tcp://db:5432"); got != "tcp://db:5432" {
		t.Errorf("unnamed: %q", got)
	}
}
