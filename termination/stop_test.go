package termination

import (
	"slices"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// t0 is when each test's stop began; offsets are from it.
var t0 = time.Unix(1000, 0)

func at(d time.Duration) time.Time { return t0.Add(d) }

// stopCfg is the stop's configuration with the defaults' timings.
func stopCfg(killAtGrace bool) *plan.Config {
	return &plan.Config{MinShutdownWindow: 2 * time.Second, DrainTimeout: time.Second, GracePeriod: 6 * time.Second,
		Behaviour: plan.Behaviour{KillAtGrace: killAtGrace}}
}

// TestOwnGrace: a stop tend begins takes OwnStopGrace when ResolveGrace
// set it, else --grace-period.
func TestOwnGrace(t *testing.T) {
	cfg := stopCfg(true)
	if got := OwnGrace(cfg); got != 6*time.Second {
		t.Errorf("without OwnStopGrace: %s, want 6s", got)
	}
	cfg.OwnStopGrace = 30 * time.Second
	if got := OwnGrace(cfg); got != 30*time.Second {
		t.Errorf("with OwnStopGrace 30s: %s, want 30s", got)
	}
}

// TestProbeGrace: a failed check's stop takes the probe's own grace period
// when it has one, else the stop's own (OwnGrace).
func TestProbeGrace(t *testing.T) {
	for _, c := range []struct {
		own, probe, want time.Duration
	}{
		{0, 0, 6 * time.Second},
		{30 * time.Second, 0, 30 * time.Second},
		{0, 2 * time.Second, 2 * time.Second},
		{30 * time.Second, 2 * time.Second, 2 * time.Second},
	} {
		cfg := stopCfg(true)
		cfg.OwnStopGrace = c.own
		if got := ProbeGrace(cfg, plan.Probe{Kind: plan.ProbeLive, GracePeriod: c.probe}); got != c.want {
			t.Errorf("own %s, probe %s: %s, want %s", c.own, c.probe, got, c.want)
		}
	}
}

// TestStopArm: the grace deadline is armed only when the stop ends in
// tend's SIGKILL.
func TestStopArm(t *testing.T) {
	for _, kill := range []bool{true, false} {
		var s Stop
		s.Begin(t0, 6*time.Second, unix.SIGTERM)
		s.Arm(stopCfg(kill))
		want := time.Time{}
		if kill {
			want = at(6 * time.Second)
		}
		if !s.KillAt.Equal(want) {
			t.Errorf("KillAtGrace %v: KillAt %v, want %v", kill, s.KillAt, want)
		}
	}
}

// TestStopSendMinShutdownWindow: SIGKILL comes no sooner than
// MinShutdownWindow after the stop signal (the kubelet's killContainer),
// never when the runtime's SIGKILL ends the stop, and never without
// KillAtGrace.
func TestStopSendMinShutdownWindow(t *testing.T) {
	cases := []struct {
		name         string
		killAtGrace  bool
		runtimeKills bool
		killAt       time.Duration // -1: not armed
		sent         time.Duration
		want         time.Duration // -1: not armed
	}{
		{"pre-stop quick: the grace deadline stands", true, false, 6 * time.Second, time.Second, 6 * time.Second},
		{"pre-stop took most of it: the window", true, false, 6 * time.Second, 5 * time.Second, 7 * time.Second},
		{"pre-stop cut at the grace deadline", true, false, -1, 6 * time.Second, 8 * time.Second},
		{"the runtime's SIGKILL ends the stop", true, true, 6 * time.Second, time.Second, -1},
		{"no SIGKILL at the grace period", false, false, -1, 5 * time.Second, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Stop{RuntimeKills: c.runtimeKills}
			s.Begin(t0, 6*time.Second, unix.SIGTERM)
			if c.killAt >= 0 {
				s.KillAt = at(c.killAt)
			}
			s.Send(at(c.sent), stopCfg(c.killAtGrace))
			want := time.Time{}
			if c.want >= 0 {
				want = at(c.want)
			}
			if !s.Sent || !s.KillAt.Equal(want) {
				t.Errorf("sent %v, KillAt %v; want sent, KillAt %v", s.Sent, s.KillAt, want)
			}
		})
	}
}

// TestStopHold: signals received during pre-stop follow the stop signal,
// each once, the stop signal itself not again, and only once.
func TestStopHold(t *testing.T) {
	var s Stop
	s.Begin(t0, time.Second, unix.SIGTERM)
	for _, sig := range []unix.Signal{unix.SIGHUP, unix.SIGTERM, unix.SIGUSR1, unix.SIGHUP} {
		s.Hold(sig)
	}
	if got := s.Send(t0, stopCfg(true)); !slices.Equal(got, []unix.Signal{unix.SIGHUP, unix.SIGUSR1}) {
		t.Errorf("held %v, want [hangup user defined signal 1]", got)
	}
	if got := s.Send(t0, stopCfg(true)); got != nil {
		t.Errorf("held again %v, want none", got)
	}
}

// TestStopDue: a deadline is due at its time, not before, once, and never
// when not armed.
func TestStopDue(t *testing.T) {
	var s Stop
	if s.GraceDue(at(time.Hour)) || s.DrainDue(at(time.Hour)) {
		t.Fatal("a deadline not armed was due")
	}
	s.KillAt, s.DrainAt = at(time.Second), at(2*time.Second)
	if s.GraceDue(at(time.Second-1)) || s.DrainDue(at(2*time.Second-1)) {
		t.Fatal("due before its time")
	}
	if !s.GraceDue(at(time.Second)) || !s.DrainDue(at(2*time.Second)) {
		t.Fatal("not due at its time")
	}
	if s.GraceDue(at(time.Hour)) || s.DrainDue(at(time.Hour)) || !s.KillAt.IsZero() || !s.DrainAt.IsZero() {
		t.Fatal("due twice, or not disarmed")
	}
}

// TestStopDrainEnd: the drain gets DrainTimeout after an app that exited on
// its own; during a stop what is left of the grace deadline, or with the
// runtime's SIGKILL grace + window + drain from the stop's start (the
// wrapper's child, docker stop's 10 s); never less than DrainTimeout.
func TestStopDrainEnd(t *testing.T) {
	cases := []struct {
		name         string
		stop         bool
		runtimeKills bool
		killAt       time.Duration // -1: not armed
		drain        time.Duration // when the drain began
		want         time.Duration // the drain's SIGKILL
	}{
		{"no stop", false, false, -1, 10 * time.Second, 11 * time.Second},
		{"the rest of the grace", true, false, 6 * time.Second, 2 * time.Second, 6 * time.Second},
		{"grace nearly over: DrainTimeout", true, false, 6 * time.Second, 5500 * time.Millisecond, 6500 * time.Millisecond},
		{"the app exited before the stop: DrainTimeout", true, false, -1, time.Second, 2 * time.Second},
		{"the runtime's SIGKILL: 9 s from the stop", true, true, -1, 3 * time.Second, 9 * time.Second},
		{"the runtime's SIGKILL, late: DrainTimeout", true, true, -1, 8500 * time.Millisecond, 9500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Stop{RuntimeKills: c.runtimeKills}
			if c.stop {
				s.Begin(t0, 6*time.Second, unix.SIGTERM)
			}
			if c.killAt >= 0 {
				s.KillAt = at(c.killAt)
			}
			s.BeginDrain(at(c.drain), stopCfg(true))
			if !s.KillAt.IsZero() || !s.DrainAt.IsZero() {
				t.Fatalf("after BeginDrain: KillAt %v, DrainAt %v; want both disarmed", s.KillAt, s.DrainAt)
			}
			wait := s.ArmDrain()
			if !s.DrainAt.Equal(at(c.want)) || wait != c.want-c.drain || s.DrainWait != wait {
				t.Errorf("DrainAt %v, wait %s; want %v, %s", s.DrainAt, wait, at(c.want), c.want-c.drain)
			}
		})
	}
}

// TestStopDrainKillAndEnd: the drain's SIGKILL leaves KillWait; its end says
// how long it took only when it signalled anything.
func TestStopDrainKillAndEnd(t *testing.T) {
	var s Stop
	s.BeginDrain(t0, stopCfg(true))
	if _, ok := s.EndDrain(at(time.Millisecond)); ok {
		t.Error("a drain that signalled nothing says it took time")
	}
	s.BeginDrain(t0, stopCfg(true))
	s.ArmDrain()
	s.KillDrain(at(time.Second))
	if !s.DrainKilled || !s.DrainAt.Equal(at(time.Second+KillWait)) {
		t.Errorf("after KillDrain: killed %v, DrainAt %v; want killed, %v", s.DrainKilled, s.DrainAt, at(time.Second+KillWait))
	}
	s.DrainDue(at(time.Hour))
	if took, ok := s.EndDrain(at(3 * time.Second)); !ok || took != 3*time.Second || !s.DrainAt.IsZero() {
		t.Errorf("EndDrain: %s, %v, DrainAt %v; want 3s, true, disarmed", took, ok, s.DrainAt)
	}
}

// TestStopPostStopEnd: post-stop is cut at grace + window + drain +
// PostStopFloor from the stop's start (9.5 s by default, inside docker
// stop's 10), never sooner than PostStopFloor from now; without a stop,
// not at all.
func TestStopPostStopEnd(t *testing.T) {
	var s Stop
	if end := s.PostStopEnd(at(time.Second), stopCfg(true)); !end.IsZero() {
		t.Errorf("no stop: post-stop cut at %v, want never", end)
	}
	s.Begin(t0, 6*time.Second, unix.SIGTERM)
	for _, c := range []struct{ now, want time.Duration }{
		{3 * time.Second, 9500 * time.Millisecond},
		{9200 * time.Millisecond, 9700 * time.Millisecond},
	} {
		if end := s.PostStopEnd(at(c.now), stopCfg(true)); !end.Equal(at(c.want)) {
			t.Errorf("post-stop begun at %s: cut at %v, want %v", c.now, end, at(c.want))
		}
	}
}
