package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
	"golang.org/x/sys/unix"
)

// health is the loop's side of the health endpoint and the app probes.
type health struct {
	server *probe.Server      // nil without --health-addr
	beat   <-chan time.Time   // republishes so /livez can tell a stuck loop
	stop   context.CancelFunc // cancels the probe goroutines
	ready  *probe.Threshold   // nil without --ready-probe
	live   *probe.Threshold   // nil without --live-probe

	hookRuns     map[probe.HookKey]uint64
	hookDuration map[string]probe.Histogram
	probeResults map[probe.ProbeKey]uint64
}

// listenHealth binds the health address before the app starts, so a bad or
// busy address is a set-up failure.
func (s *supervisor) listenHealth() error {
	s.h = health{
		hookRuns:     map[probe.HookKey]uint64{},
		hookDuration: map[string]probe.Histogram{},
		probeResults: map[probe.ProbeKey]uint64{},
		stop:         func() {},
	}
	if s.cfg.HealthAddr == "" {
		return nil
	}
	srv, err := probe.Listen(s.cfg.HealthAddr)
	if err != nil {
		return err
	}
	s.h.server = srv
	go func() {
		if err := srv.Serve(); err != nil {
			s.log.Errorf("health server: %v", err)
		}
	}()
	s.log.Infof("health endpoint on http://%s", srv.Addr())
	return nil
}

// startProbes runs the app probes in goroutines that report to the loop.
func (s *supervisor) startProbes() {
	ctx, cancel := context.WithCancel(context.Background())
	s.h.stop = cancel
	env := append(os.Environ(), fmt.Sprintf("TEND_APP_PID=%d", s.app.Pid))
	if p := s.cfg.ReadyProbe; p != nil {
		t := probe.NewThreshold(s.cfg.Probe, false) // not ready until it passes
		s.h.ready = &t
		go probe.Run(ctx, "ready", *p, s.cfg.Probe, s.reap, append(env, "TEND_HOOK=ready-probe"), s.probes)
	}
	if p := s.cfg.LiveProbe; p != nil {
		t := probe.NewThreshold(s.cfg.Probe, true) // live until it fails
		s.h.live = &t
		go probe.Run(ctx, "live", *p, s.cfg.Probe, s.reap, append(env, "TEND_HOOK=live-probe"), s.probes)
	}
}

func (s *supervisor) onProbe(r probe.Result) {
	if !r.OK {
		s.log.Debugf("%s probe failed: %v", r.Probe, r.Err)
	}
	s.h.probeResults[probe.ProbeKey{Probe: r.Probe, Result: outcome(r.OK)}]++
	t := s.h.ready
	if r.Probe == "live" {
		t = s.h.live
	}
	state, changed := t.Observe(r.OK)
	if !changed {
		return
	}
	s.log.Infof("%s probe is now %s", r.Probe, map[bool]string{true: "passing", false: "failing"}[state])
	if r.Probe == "live" && !state && s.st.phase == phaseRunning {
		s.st.exitOverride = exitLivenessFailed
		s.beginStop(unix.SIGTERM, fmt.Sprintf("liveness probe failed %d times in a row: %v", s.cfg.Probe.FailureThreshold, r.Err))
	}
}

// recordHook counts a finished hook for /metrics.
func (s *supervisor) recordHook(res hooks.Result) {
	s.h.hookRuns[probe.HookKey{Hook: res.Hook, Result: outcome(res.Err == nil)}]++
	h := s.h.hookDuration[res.Hook]
	h.Observe(res.Duration.Seconds())
	s.h.hookDuration[res.Hook] = h
}

// outcome is the result label of the hook and probe counters.
func outcome(ok bool) string {
	if ok {
		return "success"
	}
	return "failure"
}

// publish hands the handlers a fresh snapshot. It copies every map: the
// loop keeps mutating its own.
func (s *supervisor) publish() {
	if s.h.server == nil {
		return
	}
	st := &s.st
	out := &probe.Status{
		AppUp:            s.app != nil && !st.appExited,
		AppExitCode:      -1,
		Terminating:      st.terminating,
		ZombiesReaped:    s.orphans.Load(),
		SignalsForwarded: make(map[string]uint64, len(st.forwarded)),
		HookRuns:         maps.Clone(s.h.hookRuns),
		HookDurations:    maps.Clone(s.h.hookDuration), // Histogram is a value: copied whole
		ProbeResults:     maps.Clone(s.h.probeResults),
		Published:        time.Now(),
	}
	if st.appExited {
		out.AppExitCode = st.appCode
	}
	for k, v := range st.forwarded {
		out.SignalsForwarded[signals.Name(k)] = v
	}
	out.Live, out.LiveReason = s.liveness()
	out.Ready, out.ReadyReason = s.readiness()
	s.h.server.Publish(out)
}

// liveness: tend's loop runs (it is publishing) and the app runs or is
// being stopped; pause mode is always live.
func (s *supervisor) liveness() (bool, string) {
	if s.app != nil && s.st.appExited && !s.st.terminating {
		return false, "not live: the app exited"
	}
	return true, "ok"
}

// readiness: started, post-start done, readiness probe passing, no stop.
func (s *supervisor) readiness() (bool, string) {
	switch {
	case s.st.terminating:
		return false, "not ready: stopping"
	case s.app == nil:
		return true, "ok" // pause mode
	case s.st.appExited:
		return false, "not ready: the app exited"
	case len(s.cfg.PostStart) > 0 && !s.st.postStartOK:
		if s.st.hooks[hookPostStart] != nil {
			return false, "not ready: post-start running"
		}
		return false, "not ready: post-start failed"
	case s.h.ready != nil && !s.h.ready.State():
		return false, "not ready: readiness probe not passing"
	}
	return true, "ok"
}
