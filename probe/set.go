package probe

import (
	"errors"
	"fmt"
	"maps"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/internal/excerpt"
)

// Member is one check of a Set: what it feeds, its name and its
// thresholds.
type Member struct {
	Kind   Kind
	Name   string
	Params Params
}

// Set is the state of every check, as the kubelet's prober workers keep
// it (pkg/kubelet/prober/worker.go): a plain value that the event loop
// owns, feeds each attempt's result, and asks what to report. It decides
// nothing about the app; the loop acts on what Observe says changed.
type Set struct {
	members  []Member
	st       []memberState
	starting bool // some startup check has not passed yet
	results  map[health.ProbeKey]uint64
}

// memberState is what the Set knows of one check.
type memberState struct {
	t       Threshold
	lastErr error // the last failure, for /readyz?verbose and the log
	passed  bool  // a startup check that has passed once
	// seenUp: the check has passed once. In pause mode a check that never
	// has watches an app that has not started yet, not a dead one
	// (notStarted).
	seenUp bool
}

// NewSet starts each check in the kubelet's initial state (newWorker):
// readiness failing (not ready until it passes), liveness and startup
// passing until their failure threshold.
func NewSet(ms []Member) Set {
	s := Set{members: ms, st: make([]memberState, len(ms)), results: map[health.ProbeKey]uint64{}}
	for i, m := range ms {
		s.st[i].t = NewThreshold(m.Params, m.Kind != Ready)
	}
	s.starting = !s.startupPassed()
	return s
}

// First is the checks to run first, by index, and whether each ends at its
// first success: the startup checks, or, when there are none, the others.
// "Disable other probes until container has started" (worker.go, doProbe).
func (s *Set) First() (idx []int, once bool) {
	if !s.starting {
		return s.Main(), false
	}
	return s.indices(func(k Kind) bool { return k == Startup }), true
}

// Main is the readiness and liveness checks, by index: those that run
// once the startup checks have passed.
func (s *Set) Main() []int { return s.indices(func(k Kind) bool { return k != Startup }) }

func (s *Set) indices(keep func(Kind) bool) []int {
	var out []int
	for i, m := range s.members {
		if keep(m.Kind) {
			out = append(out, i)
		}
	}
	return out
}

// Change is what one attempt changed, for the loop to log and act on.
type Change struct {
	Unknown   bool // tend could not run the attempt (ErrUnknown): counted, not judged
	FirstPass bool // the check passed for the first time
	// StartupDone: this pass was the last startup check's first; the
	// Main checks begin now.
	StartupDone bool
	Flipped     bool // the check's state changed, to Passing
	Passing     bool // the check's state after the attempt
}

// Observe records check i's attempt (err nil when it passed). pause says
// tend runs no app (the sidecar health responder; see notStarted).
func (s *Set) Observe(i int, err error, pause bool) Change {
	m, cs := s.members[i], &s.st[i]
	if errors.Is(err, ErrUnknown) {
		// tend's own resource shortage, not the app's failure: counted
		// and logged, never fed to the threshold.
		s.results[health.ProbeKey{Probe: m.Name, Kind: m.Kind.String(), Result: "unknown"}]++
		return Change{Unknown: true, Passing: cs.t.State()}
	}
	s.results[health.ProbeKey{Probe: m.Name, Kind: m.Kind.String(), Result: health.Result(err)}]++
	ch := Change{Passing: cs.t.State()}
	if err != nil {
		cs.lastErr = err
	} else if !cs.seenUp {
		cs.seenUp, ch.FirstPass = true, true
	}
	if s.notStarted(i, pause) {
		return ch
	}
	ch.Passing, ch.Flipped = cs.t.Observe(err == nil)
	if m.Kind == Startup && err == nil {
		ch.Flipped = false // its pass is StartupDone's to report, not a flip
		if !cs.passed {
			cs.passed = true
			ch.StartupDone = s.startupPassed()
			s.starting = !ch.StartupDone
		}
	}
	return ch
}

func (s *Set) startupPassed() bool {
	for i, m := range s.members {
		if m.Kind == Startup && !s.st[i].passed {
			return false
		}
	}
	return true
}

// notStarted: in pause mode (the sidecar health responder), a check that
// has never passed watches an app that has not started, not a dead one, so
// its failures are not counted. Under native sidecars the app cannot start
// until the sidecar's own startupProbe has passed; counting them turned
// /livez 503 and deadlocked the pod. This is the kubelet's rule for its
// own probes: liveness is not judged until the container has started
// (pkg/kubelet/prober/worker.go, doProbe: "Disable other probes until
// container has started"), here with the first pass as the start.
func (s *Set) notStarted(i int, pause bool) bool { return pause && !s.st[i].seenUp }

// Label names check i in messages: "liveness probe" for the one unnamed
// liveness check, "readiness probe db" for a named one.
func (s *Set) Label(i int) string {
	m, word := s.members[i], "readiness probe"
	switch m.Kind {
	case Startup:
		word = "startup probe"
	case Live:
		word = "liveness probe"
	}
	if m.Name == m.Kind.String() {
		return word
	}
	return word + " " + m.Name
}

// StartupPending: not every startup check has passed yet.
func (s *Set) StartupPending() bool { return s.starting }

// failing returns the first check of kind k that is failing, if any;
// startup checks count for both /readyz and /livez until they pass.
func (s *Set) failing(k Kind) (int, bool) {
	for i, m := range s.members {
		if m.Kind == k && !s.st[i].t.State() {
			return i, true
		}
	}
	return 0, false
}

// NotLive is why the startup or liveness checks say not live ("not live:
// liveness probe failing: status 500"), or "" when none fails.
func (s *Set) NotLive() string {
	for _, k := range []Kind{Startup, Live} {
		if i, bad := s.failing(k); bad {
			return fmt.Sprintf("not live: %s failing: %s", s.Label(i), oneLineErr(s.st[i].lastErr))
		}
	}
	return ""
}

// NotReady is why the readiness checks say not ready, or "" when none
// fails; pause as for Observe.
func (s *Set) NotReady(pause bool) string {
	i, bad := s.failing(Ready)
	switch {
	case !bad:
		return ""
	case s.notStarted(i, pause):
		// The sidecar health responder: the app it watches has not been
		// seen up yet.
		return fmt.Sprintf("not ready: waiting for the app: %s not passed yet", s.Label(i))
	case s.st[i].lastErr == nil:
		return fmt.Sprintf("not ready: %s not passed yet", s.Label(i))
	}
	return fmt.Sprintf("not ready: %s failing: %s", s.Label(i), oneLineErr(s.st[i].lastErr))
}

// Statuses is every check's state, for /readyz?verbose, /livez?verbose
// and tend_probe_up; pause as for Observe.
func (s *Set) Statuses(pause bool) []health.CheckStatus {
	out := make([]health.CheckStatus, len(s.members))
	for i, m := range s.members {
		cs := s.st[i]
		up := cs.t.State()
		if m.Kind == Startup {
			up = cs.passed
		}
		st := health.CheckStatus{Name: m.Name, Kind: m.Kind.String(), Up: up}
		if !up {
			st.Detail = "not passed yet"
			if cs.lastErr != nil {
				st.Detail = oneLineErr(cs.lastErr)
			}
		}
		if s.notStarted(i, pause) && cs.lastErr != nil {
			st.Detail = "not started: " + oneLineErr(cs.lastErr)
		}
		out[i] = st
	}
	return out
}

// Results is a copy of the attempts counted, by check and result, for
// /metrics: the loop keeps counting into its own.
func (s *Set) Results() map[health.ProbeKey]uint64 { return maps.Clone(s.results) }

// oneLineErr keeps a check's error on the one line /readyz answers with,
// every control byte escaped (excerpt.Escape).
func oneLineErr(err error) string {
	if err == nil {
		return "no result yet"
	}
	return excerpt.Escape(err.Error())
}
