package termination

import (
	"slices"
	"time"

	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// KillWait bounds how long tend waits for SIGKILLed processes to be reaped:
// SIGKILL cannot be caught, but a process in uninterruptible sleep dies
// late, and tend must always exit.
const KillWait = 2 * time.Second

// PostStopFloor is what post-stop gets at least, and what the default stop
// leaves it before docker stop's SIGKILL (plan.Default).
const PostStopFloor = 500 * time.Millisecond

// Stop is the clock of the stop and of the drain that follows the app: when
// each began, what the app was sent, and when the next SIGKILL is due. It
// is a value the event loop keeps in its state and alone calls; it does no
// I/O, and the zero Stop is "no stop began, no drain".
type Stop struct {
	Began  time.Time     // the stop's start; zero when none began
	Grace  time.Duration // this stop's grace period: plan.Config.GracePeriod or the failed probe's own
	Signal unix.Signal   // what the app gets; 0 when a rewrite rule drops it
	Sent   bool          // the stop signal went to the app
	// RuntimeKills: this stop was asked for by the runtime and ends in
	// its SIGKILL, not tend's (plan.Config.RuntimeKills).
	RuntimeKills bool
	KillAt       time.Time     // SIGKILL to the app; zero when not armed
	held         []unix.Signal // signals received during pre-stop

	DrainBegan  time.Time
	DrainAt     time.Time     // the drain's next step; zero when not armed
	DrainWait   time.Duration // what the drain gave the rest of the tree, for the SIGKILL line
	DrainKilled bool
	drainEnd    time.Time // DrainAt once ArmDrain arms it
}

// OwnGrace is the grace period of a stop tend begins itself
// (plan.Config.ResolveGrace): OwnStopGrace when set, else GracePeriod.
func OwnGrace(cfg *plan.Config) time.Duration {
	if cfg.OwnStopGrace > 0 {
		return cfg.OwnStopGrace
	}
	return cfg.GracePeriod
}

// ProbeGrace is the grace period of the stop a failed liveness or startup
// check begins: the probe's own terminationGracePeriodSeconds when set
// (the kubelet's probe-level override), else OwnGrace.
func ProbeGrace(cfg *plan.Config, p plan.Probe) time.Duration {
	if p.GracePeriod > 0 {
		return p.GracePeriod
	}
	return OwnGrace(cfg)
}

// Begin starts the clock of a stop with this grace period and signal.
func (s *Stop) Begin(now time.Time, grace time.Duration, sig unix.Signal) {
	s.Began, s.Grace, s.Signal = now, grace, sig
}

// Arm sets the grace deadline, which pre-stop and the stop signal share,
// when the stop ends in tend's SIGKILL (plan.Behaviour.KillAtGrace).
func (s *Stop) Arm(cfg *plan.Config) {
	if cfg.KillAtGrace {
		s.KillAt = s.Began.Add(s.Grace)
	}
}

// Hold keeps sig, received while pre-stop runs, for the app once the stop
// signal has gone: each signal once, the stop signal not again.
func (s *Stop) Hold(sig unix.Signal) {
	if sig != s.Signal && !slices.Contains(s.held, sig) {
		s.held = append(s.held, sig)
	}
}

// Send records that the stop signal goes to the app now, and returns the
// signals held meanwhile, to follow it. SIGKILL comes no sooner than
// MinShutdownWindow after it, however long pre-stop took: the kubelet's
// killContainer (pkg/kubelet/kuberuntime/kuberuntime_container.go) raises
// a grace period under minimumGracePeriodInSeconds to it, "always give
// containers a minimal shutdown window". When the runtime's SIGKILL ends
// the stop, pre-stop is over and nothing more is cut.
func (s *Stop) Send(now time.Time, cfg *plan.Config) []unix.Signal {
	s.Sent = true
	if s.RuntimeKills {
		s.KillAt = time.Time{}
	} else if earliest := now.Add(cfg.MinShutdownWindow); cfg.KillAtGrace && s.KillAt.Before(earliest) {
		s.KillAt = earliest
	}
	held := s.held
	s.held = nil
	return held
}

// GraceDue says the grace deadline has passed, and disarms it.
func (s *Stop) GraceDue(now time.Time) bool {
	return due(&s.KillAt, now)
}

// DrainDue says the drain's deadline has passed, and disarms it.
func (s *Stop) DrainDue(now time.Time) bool {
	return due(&s.DrainAt, now)
}

func due(at *time.Time, now time.Time) bool {
	if at.IsZero() || now.Before(*at) {
		return false
	}
	*at = time.Time{}
	return true
}

// BeginDrain starts the drain's clock once the app is gone: the app's
// grace deadline is over, and the rest of the tree gets the drain's
// (ArmDrain, once it has been sent SIGTERM).
//
// After an app that exited on its own the drain lasts DrainTimeout. During
// a stop the rest of the tree (the child of a wrapper, `sh -c "node
// server.js"`, whose shell the stop signal killed) is the app's work too,
// and gets what is left of the stop: up to its grace deadline; or, when
// the runtime's SIGKILL ends the stop (RuntimeKills), up to grace period +
// MinShutdownWindow + DrainTimeout from its start (9 s by default), so
// that tend still exits with the app's code before docker stop's SIGKILL
// at 10 s. Never less than DrainTimeout.
func (s *Stop) BeginDrain(now time.Time, cfg *plan.Config) {
	s.DrainBegan = now
	s.drainEnd = now.Add(cfg.DrainTimeout)
	if !s.Began.IsZero() {
		bound := s.KillAt
		if s.RuntimeKills {
			bound = s.Began.Add(s.Grace + cfg.MinShutdownWindow + cfg.DrainTimeout)
		}
		if bound.After(s.drainEnd) {
			s.drainEnd = bound
		}
	}
	s.KillAt = time.Time{}
}

// ArmDrain arms the drain's SIGKILL, once the rest of the tree has been
// sent SIGTERM, and returns the wait it gives.
func (s *Stop) ArmDrain() time.Duration {
	s.DrainAt = s.drainEnd
	s.DrainWait = s.DrainAt.Sub(s.DrainBegan).Round(time.Millisecond)
	return s.DrainWait
}

// KillDrain records the drain's SIGKILL, sent now: what survives it gets
// KillWait, then tend gives up on it.
func (s *Stop) KillDrain(now time.Time) {
	s.DrainKilled = true
	s.DrainAt = now.Add(KillWait)
}

// EndDrain disarms the drain, and says how long it took when it signalled
// anything (ok false: nothing was left to drain).
func (s *Stop) EndDrain(now time.Time) (took time.Duration, ok bool) {
	ok = !s.DrainAt.IsZero() || s.DrainKilled
	s.DrainAt = time.Time{}
	return now.Sub(s.DrainBegan).Round(time.Millisecond), ok
}

// PostStopEnd is when post-stop is cut after a stop: the grace period, the
// shutdown window pre-stop may have forced, and the drain, then
// PostStopFloor, all from the start of the stop; never less than
// PostStopFloor from now. With the defaults that is 9.5 s, inside docker
// stop's 10. After an app that exited on its own, nothing but
// --hook-timeout bounds post-stop: zero.
func (s *Stop) PostStopEnd(now time.Time, cfg *plan.Config) time.Time {
	if s.Began.IsZero() {
		return time.Time{}
	}
	end := s.Began.Add(s.Grace + cfg.MinShutdownWindow + cfg.DrainTimeout + PostStopFloor)
	if floor := now.Add(PostStopFloor); end.Before(floor) {
		end = floor
	}
	return end
}
