package probe

import (
	"fmt"
	"strings"
	"time"
)

// Await is the state of --wait-for: the dependencies awaited before
// pre-start and the app, as wait-for-it, dockerize -wait and linkerd-await
// do from a shell that a FROM scratch image has not got. Each is attempted
// by UntilUp; the event loop owns this value, feeds it the results, and
// keeps the phases, the log and the stop.
type Await struct {
	names, specs []string
	pending      []bool  // not passed yet
	lastErr      []error // each one's last failure
	began        time.Time
	at           time.Time // the timeout; zero: no bound, or not waiting
	progressAt   time.Time // the next progress line; zero: not waiting
}

// WaitProgress is how often the log says what is still awaited.
const WaitProgress = 5 * time.Second

// NewAwait begins the wait at now for the dependencies names[i]=specs[i],
// none up yet; timeout 0 is no bound.
func NewAwait(names, specs []string, now time.Time, timeout time.Duration) Await {
	a := Await{names: names, specs: specs, pending: make([]bool, len(names)), lastErr: make([]error, len(names)),
		began: now, progressAt: now.Add(WaitProgress)}
	for i := range a.pending {
		a.pending[i] = true
	}
	if timeout > 0 {
		a.at = now.Add(timeout)
	}
	return a
}

// WaitLabel is NAME=SPEC, or the spec alone when it was not named.
func WaitLabel(name, spec string) string {
	if name == spec {
		return spec
	}
	return name + "=" + spec
}

// Label is dependency i's WaitLabel.
func (a *Await) Label(i int) string { return WaitLabel(a.names[i], a.specs[i]) }

// Awaited says what is still awaited: "waiting for db=tcp://db:5432,
// cache=tcp://cache:6379".
func (a *Await) Awaited() string {
	var names []string
	for i := range a.pending {
		if a.pending[i] {
			names = append(names, a.Label(i))
		}
	}
	return "waiting for " + strings.Join(names, ", ")
}

// StillFailing names each dependency not up yet, with its last error.
func (a *Await) StillFailing() string {
	var out []string
	for i := range a.pending {
		if a.pending[i] {
			out = append(out, fmt.Sprintf("%s (%s)", a.names[i], oneLineErr(a.lastErr[i])))
		}
	}
	return strings.Join(out, ", ")
}

// Pending: dependency i has not passed yet.
func (a *Await) Pending(i int) bool { return a.pending[i] }

// Failed records dependency i's failed attempt.
func (a *Await) Failed(i int, err error) { a.lastErr[i] = err }

// Up records that dependency i passed at now, and returns how long after
// the wait began, and whether every dependency is now up.
func (a *Await) Up(i int, now time.Time) (took time.Duration, all bool) {
	a.pending[i] = false
	took = now.Sub(a.began).Round(time.Millisecond)
	for _, p := range a.pending {
		if p {
			return took, false
		}
	}
	return took, true
}

// Tick says, at now, whether the timeout has passed, or else whether a
// progress line is due and how long the wait has lasted.
func (a *Await) Tick(now time.Time) (timedOut, progress bool, waited time.Duration) {
	if !a.at.IsZero() && !now.Before(a.at) {
		return true, false, 0
	}
	if !a.progressAt.IsZero() && !now.Before(a.progressAt) {
		a.progressAt = now.Add(WaitProgress)
		return false, true, now.Sub(a.began).Round(time.Second)
	}
	return false, false, 0
}

// End disarms the wait's deadlines.
func (a *Await) End() { a.at, a.progressAt = time.Time{}, time.Time{} }

// Deadline is when Tick next has something to say, or zero for never.
func (a *Await) Deadline() time.Time {
	if a.at.IsZero() || (!a.progressAt.IsZero() && a.progressAt.Before(a.at)) {
		return a.progressAt
	}
	return a.at
}
