package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/probe"
)

// State is what the app has said on its socket, as the event loop keeps
// it: a value the loop updates with Apply and reads, never shared.
type State struct {
	// Ready is the readiness condition: READY=1 seen, and no RELOADING=1
	// after it (sd_notify(3): reloading "until it sends READY=1 again").
	Ready bool
	// WasReady: a READY=1 came once, so a later not-ready is a reload.
	WasReady bool
	// Status is the last STATUS=, escaped, for /readyz?verbose.
	Status string
	// Stopping: the app said STOPPING=1 (tend logs it; the stop is tend's).
	Stopping bool
	// MainPID and Errno are the last valid values said, for the log.
	MainPID, Errno int
	// Triggered: the app sent WATCHDOG=trigger, asking to be treated as
	// hung (systemd runs the watchdog action at once).
	Triggered bool

	armed    bool
	lastPing time.Time
}

// Apply folds m into s at time now, in service_notify_message's order:
// RELOADING=1 before READY=1, so a datagram with both leaves s ready.
func (s *State) Apply(m Message, now time.Time) {
	if m.Reloading {
		s.Ready = false
	}
	if m.Ready {
		s.Ready, s.WasReady = true, true
	}
	if m.Stopping {
		s.Stopping = true
	}
	if m.HasStatus {
		s.Status = m.Status
	}
	if m.MainPID > 0 {
		s.MainPID = m.MainPID
	}
	if m.Errno > 0 {
		s.Errno = m.Errno
	}
	if m.Trigger {
		s.Triggered = true
	}
	// systemd resets the watchdog on every WATCHDOG=1, and arms it when the
	// service enters its running state, which for Type=notify is READY=1
	// (service.c, service_enter_running -> service_start_watchdog).
	if m.Watchdog || (m.Ready && !s.armed) {
		s.Arm(now)
	}
}

// Arm starts (or restarts) the watchdog clock at now. Apply arms it on the
// first READY=1 or WATCHDOG=1; the loop arms it itself at the app's start
// when the app's readiness does not come from this socket.
func (s *State) Arm(now time.Time) {
	s.armed = true
	s.lastPing = now
}

// Hung reports whether the app has missed its watchdog: armed, and no
// WATCHDOG=1 for period (the --notify-watchdog value), or it sent
// WATCHDOG=trigger. A period of 0 means no watchdog, and then a trigger
// does nothing either: the watchdog is the user's to ask for
// (--notify-watchdog), as it is the unit's (WatchdogSec=) in systemd.
func (s *State) Hung(now time.Time, period time.Duration) bool {
	if period <= 0 {
		return false
	}
	return s.Triggered || (s.armed && now.Sub(s.lastPing) >= period)
}

// Deadline is when Hung turns true if no WATCHDOG=1 comes, for the loop's
// timer; ok is false when the watchdog is not armed or period is 0.
func (s *State) Deadline(period time.Duration) (time.Time, bool) {
	if period <= 0 || !s.armed {
		return time.Time{}, false
	}
	return s.lastPing.Add(period), true
}

// Readiness is READY=1 as a readiness condition, in /readyz's words.
func (s *State) Readiness() (bool, string) {
	switch {
	case s.Ready:
		return true, "ok"
	case s.WasReady:
		return false, "not ready: the app is reloading (RELOADING=1)"
	}
	return false, "not ready: the app has not sent READY=1"
}

// HungWhy says why Hung holds, for the stop's log line and termination
// message.
func (s *State) HungWhy(period time.Duration) string {
	if s.Triggered {
		return "the app sent WATCHDOG=trigger"
	}
	return fmt.Sprintf("the app sent no WATCHDOG=1 for %s (--notify-watchdog)", period)
}

// Checks is the app's socket as /readyz?verbose and /livez?verbose list
// it: "notify" beside the readiness probes, with the app's STATUS=, and,
// when period (--notify-watchdog) is set, "notify-watchdog" beside the
// liveness probes.
func (s *State) Checks(now time.Time, period time.Duration) []health.CheckStatus {
	ready, why := s.Readiness()
	c := health.CheckStatus{Name: "notify", Kind: probe.Ready.String(), Up: ready}
	if !ready {
		c.Detail = strings.TrimPrefix(why, "not ready: ")
	}
	if s.Status != "" {
		c.Detail = strings.TrimPrefix(c.Detail+"; STATUS="+s.Status, "; ")
	}
	out := []health.CheckStatus{c}
	if period > 0 {
		hung := s.Hung(now, period)
		w := health.CheckStatus{Name: "notify-watchdog", Kind: probe.Live.String(), Up: !hung}
		if hung {
			w.Detail = fmt.Sprintf("no WATCHDOG=1 for %s", period)
		}
		out = append(out, w)
	}
	return out
}
