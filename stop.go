package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/reaper"
	"github.com/tend-init/tend/signals"
	"golang.org/x/sys/unix"
)

// Exit codes that tend chooses itself. They are fixed so that an
// orchestrator can tell them apart, and -e never remaps them.
const (
	exitPostStartFailed = 69 // EX_UNAVAILABLE: the app never became usable
	exitLivenessFailed  = 75 // EX_TEMPFAIL: restart me
)

type phase int

const (
	phasePause    phase = iota // no app: reap until TERM or INT
	phaseRunning               // the app runs
	phaseStopping              // a stop began: pre-stop, then the stop signal
	phaseDraining              // the app is gone: TERM, then KILL, the rest
	phasePostStop              // post-stop hooks run
	phaseDone
)

const (
	hookPostStart = "post-start"
	hookPreStop   = "pre-stop"
	hookPostStop  = "post-stop"
)

// hookRun is one hook in flight.
type hookRun struct {
	cancel  context.CancelCauseFunc
	started time.Time
}

// state is what the loop decides on. Only the loop goroutine touches it.
type state struct {
	phase        phase
	appStarted   time.Time
	appExited    bool
	appCode      int
	noChildren   bool // the last reap found no child left at all
	terminating  bool // a stop has begun: not ready
	postStartOK  bool
	stopSignal   unix.Signal
	stopSent     bool
	stopBegan    time.Time
	exitOverride int // one of the exit* codes, or 0
	drainKilled  bool
	drainBegan   time.Time
	hooks        map[string]*hookRun

	forwarded map[unix.Signal]uint64
}

func newState() state {
	return state{hooks: map[string]*hookRun{}, forwarded: map[unix.Signal]uint64{}}
}

func (st *state) cancelHook(name string, cause error) {
	if h := st.hooks[name]; h != nil {
		h.cancel(cause)
	}
}

// exitCode is the app's code with the -e remaps applied, unless tend chose
// a code of its own.
func (st *state) exitCode(cfg *config) int {
	if st.exitOverride != 0 {
		return st.exitOverride
	}
	if cfg.RemapExit[st.appCode&0xff] {
		return 0
	}
	return st.appCode
}

// beginStop starts the stop sequence: not ready, post-start killed, then
// pre-stop, then sig to the app, with SIGKILL at the grace deadline.
func (s *supervisor) beginStop(sig unix.Signal, why string) {
	if s.st.phase != phaseRunning && s.st.phase != phasePause {
		return
	}
	pause := s.st.phase == phasePause
	s.st.phase = phaseStopping
	s.st.terminating = true
	s.st.stopSignal = sig
	s.st.stopBegan = time.Now()
	s.log.Infof("stop: %s; grace period %s", why, s.cfg.GracePeriod)
	s.publish() // /readyz turns 503 now, not after the next event
	s.h.stop()  // probes end with the stop, as in Kubernetes
	s.st.cancelHook(hookPostStart, errors.New("a stop began"))
	if pause || s.st.appExited {
		return
	}
	s.grace = time.NewTimer(s.cfg.GracePeriod)
	s.graceC = s.grace.C
	if len(s.cfg.PreStop) == 0 {
		s.sendStop()
		return
	}
	deadline, cancel := context.WithDeadline(context.Background(), s.st.stopBegan.Add(s.cfg.GracePeriod))
	s.startHook(hookPreStop, s.cfg.PreStop, deadline)
	// The deadline context is released when the pre-stop reports.
	s.st.hooks[hookPreStop].cancel = chainCancel(s.st.hooks[hookPreStop].cancel, cancel)
}

func chainCancel(a context.CancelCauseFunc, b context.CancelFunc) context.CancelCauseFunc {
	return func(err error) { a(err); b() }
}

func (s *supervisor) sendStop() {
	s.st.stopSent = true
	s.log.Infof("stop: sending %s to the app, %s after the stop began", signals.Name(s.st.stopSignal), time.Since(s.st.stopBegan).Round(time.Millisecond))
	s.forward(s.st.stopSignal)
}

func (s *supervisor) onEvent(res hooks.Result) {
	h := s.st.hooks[res.Hook]
	delete(s.st.hooks, res.Hook)
	if h != nil {
		h.cancel(nil)
	}
	s.recordHook(res)
	if res.Err != nil {
		s.log.Warnf("%s failed after %s: %v", res.Hook, res.Duration.Round(time.Millisecond), res.Err)
	} else {
		s.log.Infof("%s succeeded in %s", res.Hook, res.Duration.Round(time.Millisecond))
	}
	switch res.Hook {
	case hookPostStart:
		if res.Err == nil {
			s.st.postStartOK = true
			return
		}
		if s.st.phase == phaseRunning && !s.st.appExited {
			s.st.exitOverride = exitPostStartFailed
			s.beginStop(unix.SIGTERM, "post-start failed")
		}
	case hookPreStop:
		if !s.st.appExited {
			s.sendStop()
		}
	case hookPostStop:
		s.st.phase = phaseDone
	}
}

// onGrace fires at the stop deadline: whatever still runs of the app is
// killed, its group too with -g.
func (s *supervisor) onGrace() {
	s.graceC = nil
	s.st.cancelHook(hookPreStop, errors.New("grace period expired"))
	if s.st.appExited || s.app.Reaped() {
		return
	}
	s.log.Warnf("stop: grace period of %s expired: sending SIGKILL to the app", s.cfg.GracePeriod)
	if s.cfg.KillGroup {
		if err := s.app.SignalGroup(unix.SIGKILL); err != nil {
			s.log.Errorf("SIGKILL to the app's group: %v", err)
		}
	}
	if err := s.app.Signal(unix.SIGKILL); err != nil {
		s.log.Errorf("SIGKILL to the app: %v", err)
	}
}

// advance moves the sequence on once its conditions hold: the app gone and
// no hook of its own still running means drain; a drained tree means
// post-stop.
func (s *supervisor) advance() {
	appGone := s.app == nil || s.st.appExited
	switch s.st.phase {
	case phaseRunning, phaseStopping:
		if appGone && s.st.hooks[hookPostStart] == nil && s.st.hooks[hookPreStop] == nil &&
			(s.app != nil || s.st.phase == phaseStopping) {
			s.beginDrain()
		}
	case phaseDraining:
		if s.st.noChildren {
			s.endDrain()
		}
	}
}

// beginDrain sends SIGTERM to every process left (the namespace as PID 1,
// our descendants otherwise) and gives them the drain timeout.
func (s *supervisor) beginDrain() {
	s.st.phase = phaseDraining
	s.st.drainBegan = time.Now()
	if s.grace != nil {
		s.grace.Stop()
		s.graceC = nil
	}
	s.reapAll()
	if s.st.noChildren {
		s.endDrain()
		return
	}
	s.log.Infof("drain: sent SIGTERM to %s; waiting up to %s", s.signalRest(unix.SIGTERM), s.cfg.DrainTimeout)
	s.drain = time.NewTimer(s.cfg.DrainTimeout)
	s.drainC = s.drain.C
}

func (s *supervisor) onDrainTimeout() {
	if s.st.drainKilled {
		s.log.Warnf("drain: processes survived SIGKILL; giving up on them")
		s.endDrain()
		return
	}
	s.st.drainKilled = true
	s.log.Warnf("drain: %s expired; sent SIGKILL to %s", s.cfg.DrainTimeout, s.signalRest(unix.SIGKILL))
	// SIGKILL cannot be caught, but a process in uninterruptible sleep
	// dies late; bound the wait so tend always exits.
	s.drain = time.NewTimer(killWait)
	s.drainC = s.drain.C
}

// killWait bounds how long tend waits for SIGKILLed processes to be reaped.
const killWait = 2 * time.Second

func (s *supervisor) endDrain() {
	if s.drain != nil {
		s.drain.Stop()
		s.drainC = nil
		s.log.Infof("drain: done in %s", time.Since(s.st.drainBegan).Round(time.Millisecond))
	}
	s.st.phase = phasePostStop
	if len(s.cfg.PostStop) == 0 {
		s.st.phase = phaseDone
		return
	}
	s.startHook(hookPostStop, s.cfg.PostStop, context.Background())
}

// signalRest signals every process left: as PID 1, kill(-1) reaches exactly
// the namespace minus tend; otherwise only tend's own descendants are
// signalled, never the whole system.
// It returns what it signalled, for the log.
func (s *supervisor) signalRest(sig unix.Signal) string {
	if s.pid1 {
		if err := unix.Kill(-1, sig); err != nil && !errors.Is(err, unix.ESRCH) {
			s.log.Errorf("kill(-1, %s): %v", signals.Name(sig), err)
		}
		return "every process in the namespace"
	}
	n, err := reaper.SignalDescendants(os.Getpid(), sig)
	if err != nil {
		s.log.Errorf("signalling descendants: %v", err)
	}
	return fmt.Sprintf("%d descendant(s)", n)
}
