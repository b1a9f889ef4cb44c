package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/reaper"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/subreaper"
	"golang.org/x/sys/unix"
)

// supervisor is tend's one event loop and the state it owns. Goroutines
// that run hooks or probes only send results on events; every decision is
// taken by the loop goroutine, in run.
type supervisor struct {
	cfg    *config
	log    *logger
	reap   *reaper.Reaper
	sigs   *signals.Channels
	pid1   bool
	app    *reaper.Child     // nil in pause mode
	events chan hooks.Result // hook results from their goroutines
	probes chan probe.Result // probe attempts from their goroutines
	st     state
	h      health
	// orphans counts reaped processes nobody subscribed to; the reaper's
	// goroutine adds to it (see onOrphan).
	orphans atomic.Uint64

	graceC <-chan time.Time // fires at the stop deadline
	drainC <-chan time.Time // fires at the end of draining
	grace  *time.Timer
	drain  *time.Timer
}

// newSupervisor performs the set-up in the order that loses nothing: the
// parent-death signal, the subreaper bit, the signal handlers, and only
// then the app.
func newSupervisor(cfg *config, log *logger) (*supervisor, error) {
	s := &supervisor{
		cfg:    cfg,
		log:    log,
		reap:   nil, // set below: its orphan callback needs s
		pid1:   os.Getpid() == 1,
		events: make(chan hooks.Result, 16),
		probes: make(chan probe.Result, 16),
		st:     newState(),
	}
	s.reap = reaper.New(s.onOrphan)
	if cfg.Pdeathsig != 0 {
		if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(cfg.Pdeathsig), 0, 0, 0); err != nil {
			return nil, fmt.Errorf("prctl(PR_SET_PDEATHSIG, %s): %w", signals.Name(cfg.Pdeathsig), err)
		}
	}
	if err := s.setSubreaper(); err != nil {
		return nil, err
	}
	if err := s.listenHealth(); err != nil {
		return nil, err
	}
	s.sigs = signals.Listen()
	for _, sig := range s.sigs.Ignored {
		log.Debugf("%s was ignored when tend started: it stays ignored, and the app inherits that", signals.Name(sig))
	}
	if len(cfg.Args) == 0 {
		s.sigs.ListenRealtime()
		log.Infof("no program given: pause mode, reaping until TERM or INT")
		return s, nil
	}
	path, err := lookPath(cfg.Args[0])
	if err != nil {
		return nil, err
	}
	app, err := s.reap.Start(appCommand(path, cfg.Args))
	if err != nil {
		return nil, startError(cfg.Args[0], err)
	}
	s.app = app
	s.st.appStarted = time.Now()
	signals.AfterAppStart()
	log.Infof("started %q as pid %d", cfg.Args[0], app.Pid)
	return s, nil
}

func (s *supervisor) setSubreaper() error {
	if s.cfg.Subreaper {
		if err := subreaper.Set(); err != nil {
			return err
		}
		return nil
	}
	if s.pid1 {
		return nil
	}
	if is, err := subreaper.Is(); err == nil && is {
		return nil // a wrapper set the bit and exec'd us
	}
	s.log.Warnf("tend is not PID 1 and not a child subreaper, so zombie reaping won't work: " +
		"orphans are re-parented elsewhere. Use -s or TINI_SUBREAPER, or run tend as PID 1")
	return nil
}

// run is the event loop. It returns tend's exit code once the app has
// exited, the tree has drained and the post-stop hooks have run.
func (s *supervisor) run(ctx context.Context) int {
	// No signals.Stop on the way out: each signal costs a round trip to
	// the runtime's signal thread (up to 0.9 ms in all), and tend is
	// about to exit, which unregisters everything at once.
	defer s.h.stop()
	done := make(chan struct{})
	defer close(done)
	batches := make(chan reaper.Batch, 1)
	go s.reap.Run(done, batches)
	if s.h.server != nil {
		defer s.h.server.Close()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		s.h.beat = t.C
	}
	var appDone <-chan reaper.Exit
	realtime := time.After(signals.RealtimeDelay)
	if s.app == nil {
		realtime = nil // pause mode registered them already
	}
	if s.app != nil {
		appDone = s.app.Done()
		s.st.phase = phaseRunning
		s.startHook(hookPostStart, s.cfg.PostStart, context.Background())
		s.startProbes()
	}
	ctxDone := ctx.Done()
	for s.st.phase != phaseDone {
		select {
		case b := <-batches:
			s.onReaped(b)
		case <-s.sigs.Child:
			// Run reaps as the kernel reports exits; SIGCHLD only
			// wakes it when it was idle for want of children.
			s.reap.Kick()
		case sig := <-s.sigs.Forward:
			s.onSignal(sig.(syscall.Signal))
		case e := <-appDone:
			appDone = nil
			s.onAppExit(e)
		case ev := <-s.events:
			s.onEvent(ev)
		case r := <-s.probes:
			s.onProbe(r)
		case <-realtime:
			realtime = nil
			s.sigs.ListenRealtime()
			s.log.Debugf("realtime signals registered")
		case <-s.h.beat:
		case <-s.graceC:
			s.onGrace()
		case <-s.drainC:
			s.onDrainTimeout()
		case <-ctxDone:
			ctxDone = nil
			s.beginStop(unix.SIGTERM, "context cancelled")
		}
		s.advance()
		s.publish()
	}
	return s.st.exitCode(s.cfg)
}

// reapAll collects every exited child. Exits of processes started through
// the reaper (the app, hooks) arrive on their own channels; the rest are
// orphans.
func (s *supervisor) reapAll() {
	none, err := s.reap.Reap()
	s.onReaped(reaper.Batch{None: none, Err: err})
}

func (s *supervisor) onReaped(b reaper.Batch) {
	if b.Err != nil {
		s.log.Errorf("%v", b.Err)
	}
	s.st.noChildren = b.None
}

// onOrphan runs on the reaper's goroutine, under its lock, for each orphan
// the moment it is reaped. It only counts and logs: the counter is atomic
// so that the loop can read it, and a log line is one write.
func (s *supervisor) onOrphan(e reaper.Exit) {
	s.orphans.Add(1)
	if s.cfg.WarnOnReap {
		s.log.Warnf("Reaped zombie process with pid=%d", e.Pid)
	}
}

// onSignal handles one forwardable signal. TERM and INT begin the stop
// sequence; anything else is passed to the app at once.
func (s *supervisor) onSignal(recv syscall.Signal) {
	sig, ok := s.cfg.Rewrite.Apply(recv)
	if !ok {
		s.log.Debugf("dropped %s (rewrite rule)", signals.Name(recv))
		return
	}
	if recv == unix.SIGTERM || recv == unix.SIGINT {
		switch {
		case s.st.phase == phaseRunning, s.st.phase == phasePause:
			s.beginStop(sig, "received "+signals.Name(recv))
			return
		case s.st.phase == phaseStopping && !s.st.stopSent:
			s.log.Infof("received %s while pre-stop runs: the stop signal follows when it ends", signals.Name(recv))
			return
		}
	}
	s.forward(sig)
}

// forward sends sig to the app, or to its process group with -g.
func (s *supervisor) forward(sig syscall.Signal) {
	// Reaped is checked, not just appExited: the reaper may have collected
	// the app in this very loop iteration, before its exit was read.
	if s.app == nil || s.st.appExited || s.app.Reaped() {
		s.log.Debugf("not forwarding %s: no app running", signals.Name(sig))
		return
	}
	var err error
	if s.cfg.KillGroup {
		err = s.app.SignalGroup(sig)
	} else {
		err = s.app.Signal(sig)
	}
	if err != nil {
		s.log.Warnf("forwarding %s to pid %d: %v", signals.Name(sig), s.app.Pid, err)
		return
	}
	s.st.forwarded[sig]++
	s.log.Debugf("forwarded %s to pid %d", signals.Name(sig), s.app.Pid)
}

func (s *supervisor) onAppExit(e reaper.Exit) {
	s.app.Release()
	s.st.appExited = true
	s.st.appCode = e.Code()
	s.log.Infof("app (pid %d) exited with code %d after %s", e.Pid, s.st.appCode, time.Since(s.st.appStarted).Round(time.Millisecond))
	s.st.cancelHook(hookPostStart, errors.New("the app exited"))
}

// startHook runs cmds for hook in a goroutine that reports to the loop.
func (s *supervisor) startHook(name string, cmds []hooks.Command, parent context.Context) {
	if len(cmds) == 0 {
		return
	}
	ctx, cancel := context.WithCancelCause(parent)
	env := append(os.Environ(), "TEND_HOOK="+name)
	if s.app != nil {
		env = append(env, fmt.Sprintf("TEND_APP_PID=%d", s.app.Pid))
	}
	if name == hookPostStop {
		env = append(env, fmt.Sprintf("TEND_EXIT_CODE=%d", s.st.appCode))
	}
	s.st.hooks[name] = &hookRun{cancel: cancel, started: time.Now()}
	s.log.Infof("%s: running %d command(s)", name, len(cmds))
	go func() {
		res := hooks.Run(ctx, s.reap, name, cmds, env, s.cfg.HookTimeout)
		cancel(nil)
		s.events <- res // the loop keeps reading until every hook has reported
	}()
}
