package notify

import (
	"testing"
	"time"
)

func TestStateApply(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var s State
	if s.Ready || s.Hung(t0.Add(time.Hour), time.Second) {
		t.Fatal("zero State is ready or hung: the watchdog must not run before it is armed")
	}
	steps := []struct {
		msg       string
		at        time.Duration
		ready     bool
		status    string
		hungAfter time.Duration // checked at at+hungAfter with a 10 s period
		hung      bool
	}{
		{"STATUS=loading", 0, false, "loading", 10 * time.Second, false},
		{"READY=1\nSTATUS=up", time.Second, true, "up", 10 * time.Second, true},
		{"WATCHDOG=1", 5 * time.Second, true, "up", 9 * time.Second, false},
		{"RELOADING=1\nSTATUS=reloading", 6 * time.Second, false, "reloading", 0, false},
		{"READY=1", 7 * time.Second, true, "reloading", 0, false},
		{"RELOADING=1\nREADY=1", 8 * time.Second, true, "reloading", 0, false},
		{"STATUS=", 9 * time.Second, true, "", 0, false},
		{"WATCHDOG=trigger", 9 * time.Second, true, "", 0, true},
	}
	for _, st := range steps {
		now := t0.Add(st.at)
		s.Apply(Parse([]byte(st.msg)), now)
		if s.Ready != st.ready || s.Status != st.status {
			t.Fatalf("after %q: ready %v status %q, want %v %q", st.msg, s.Ready, s.Status, st.ready, st.status)
		}
		if got := s.Hung(now.Add(st.hungAfter), 10*time.Second); got != st.hung {
			t.Fatalf("after %q: Hung(+%v) = %v, want %v", st.msg, st.hungAfter, got, st.hung)
		}
	}
	if s.Hung(t0.Add(time.Hour), 0) {
		t.Error("a trigger without --notify-watchdog must not count")
	}
}

func TestStateDeadline(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var s State
	if _, ok := s.Deadline(time.Second); ok {
		t.Fatal("deadline before arming")
	}
	s.Arm(t0)
	s.Apply(Parse([]byte("WATCHDOG=1")), t0.Add(3*time.Second))
	if d, ok := s.Deadline(time.Second); !ok || !d.Equal(t0.Add(4*time.Second)) {
		t.Fatalf("Deadline = %v %v", d, ok)
	}
	if _, ok := s.Deadline(0); ok {
		t.Fatal("deadline with no watchdog")
	}
}
