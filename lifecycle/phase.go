package lifecycle

import (
	"fmt"
	"log/slog"
	"slices"
)

// Phase is where the lifecycle stands. The zero value is not a live phase,
// so a state that was never set up cannot pass for one.
type Phase int

const (
	phaseNone Phase = iota
	// phaseWaiting: --wait-for's dependencies are attempted; neither
	// pre-start nor the app has started.
	phaseWaiting
	// phasePreStart: pre-start runs; the app has not started.
	phasePreStart
	// phaseStarting: the app runs and its post-start hooks have not all
	// succeeded yet; not ready.
	phaseStarting
	// phaseRunning: the app runs and post-start is done.
	phaseRunning
	// phasePause: no app; tend reaps until a stop signal.
	phasePause
	// phaseStopping: a stop began: pre-stop, then the stop signal, with
	// SIGKILL at the grace deadline.
	phaseStopping
	// phaseDraining: the app is gone; the rest of the tree gets TERM, then
	// KILL at the drain timeout.
	phaseDraining
	// phasePostStop: the tree is empty; post-stop hooks run.
	phasePostStop
	// phaseDone: the loop returns the exit code.
	phaseDone
)

var phaseNames = [...]string{"none", "waiting", "pre-start", "starting", "running", "pause", "stopping", "draining", "post-stop", "done"}

func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("phase(%d)", int(p))
	}
	return phaseNames[p]
}

// next lists, for each phase, the phases it may move to. Anything else is
// an internal error. (An array, not a map: a map literal costs its init
// code in the binary.)
var next = [phaseDone + 1][]Phase{
	phaseNone:     {phaseWaiting, phasePreStart, phaseStarting, phasePause},
	phaseWaiting:  {phasePreStart, phaseStarting, phasePause, phaseDraining},
	phasePreStart: {phaseStarting, phasePause, phaseDraining},
	phaseStarting: {phaseRunning, phaseStopping, phaseDraining},
	phaseRunning:  {phaseStopping, phaseDraining},
	phasePause:    {phaseStopping},
	phaseStopping: {phaseDraining},
	phaseDraining: {phasePostStop},
	phasePostStop: {phaseDone},
}

func validTransition(from, to Phase) bool {
	return from >= 0 && int(from) < len(next) && slices.Contains(next[from], to)
}

// transition is the one place the phase changes. It logs every change at
// -v and refuses an invalid one as an internal error: the phase stays, the
// error is logged and counted, and tend keeps running, because a PID 1
// that panics takes the whole container with it.
func (m *machine) transition(to Phase, why string) bool {
	from := m.st.phase
	if !validTransition(from, to) {
		m.internalError(fmt.Errorf("invalid transition %s -> %s (%s)", from, to, why))
		return false
	}
	m.st.phase = to
	m.log.With(slog.String("from", from.String()), slog.String("phase", to.String()), slog.String("reason", why)).Infof("phase %s -> %s: %s", from, to, why)
	return true
}

func (m *machine) internalError(err error) {
	m.st.internalErrors++
	m.log.Errorf("internal error: %v", err)
}
