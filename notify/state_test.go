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

// TestStateReadiness: READY=1 as a readiness condition, and a not-ready
// after a READY=1 worded as a reload.
func TestStateReadiness(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var s State
	for _, st := range []struct {
		msg   string
		ready bool
		why   string
	}{
		{"STATUS=loading", false, "not ready: the app has not sent READY=1"},
		{"RELOADING=1", false, "not ready: the app has not sent READY=1"},
		{"READY=1", true, "ok"},
		{"RELOADING=1", false, "not ready: the app is reloading (RELOADING=1)"},
		{"READY=1", true, "ok"},
	} {
		s.Apply(Parse([]byte(st.msg)), t0)
		if ready, why := s.Readiness(); ready != st.ready || why != st.why {
			t.Fatalf("after %q: Readiness() = %v %q, want %v %q", st.msg, ready, why, st.ready, st.why)
		}
	}
}

// TestStateChecks: the rows /readyz?verbose and /livez?verbose list for
// the app's socket, and why a hung app is stopped.
func TestStateChecks(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var s State
	s.Apply(Parse([]byte("STATUS=loading")), t0)
	if cs := s.Checks(t0, 0); len(cs) != 1 || cs[0].Name != "notify" || cs[0].Kind != "ready" || cs[0].Up ||
		cs[0].Detail != "the app has not sent READY=1; STATUS=loading" {
		t.Fatalf("before READY=1, no watchdog: %+v", cs)
	}
	s.Apply(Parse([]byte("READY=1\nSTATUS=")), t0)
	cs := s.Checks(t0.Add(10*time.Second), 10*time.Second)
	if len(cs) != 2 || !cs[0].Up || cs[0].Detail != "" || cs[1].Name != "notify-watchdog" || cs[1].Kind != "live" ||
		cs[1].Up || cs[1].Detail != "no WATCHDOG=1 for 10s" {
		t.Fatalf("ready, watchdog missed: %+v", cs)
	}
	if why := s.HungWhy(10 * time.Second); why != "the app sent no WATCHDOG=1 for 10s (--notify-watchdog)" {
		t.Errorf("HungWhy = %q", why)
	}
	s.Apply(Parse([]byte("WATCHDOG=trigger")), t0)
	if why := s.HungWhy(10 * time.Second); why != "the app sent WATCHDOG=trigger" {
		t.Errorf("HungWhy after a trigger = %q", why)
	}
}
