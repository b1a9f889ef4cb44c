package main

import (
	"testing"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/reaper"
)

// TestReadinessAndLiveness drives the loop's health decisions as plain
// values, without processes.
func TestReadinessAndLiveness(t *testing.T) {
	app := &reaper.Child{Pid: 42}
	failing := probe.NewThreshold(probe.DefaultParams(), false)
	passing := probe.NewThreshold(probe.DefaultParams(), true)
	cases := []struct {
		name        string
		app         *reaper.Child
		postStart   int // configured post-start commands
		st          state
		ready       *probe.Threshold
		wantReady   string
		wantLive    string
		runningHook bool
	}{
		{name: "pause mode", wantReady: "ok", wantLive: "ok"},
		{name: "pause mode stopping", st: state{terminating: true}, wantReady: "not ready: stopping", wantLive: "ok"},
		{name: "running", app: app, wantReady: "ok", wantLive: "ok"},
		{name: "post-start running", app: app, postStart: 1, runningHook: true, wantReady: "not ready: post-start running", wantLive: "ok"},
		{name: "post-start failed", app: app, postStart: 1, wantReady: "not ready: post-start failed", wantLive: "ok"},
		{name: "post-start done", app: app, postStart: 1, st: state{postStartOK: true}, wantReady: "ok", wantLive: "ok"},
		{name: "probe not passing", app: app, ready: &failing, wantReady: "not ready: readiness probe not passing", wantLive: "ok"},
		{name: "probe passing", app: app, ready: &passing, wantReady: "ok", wantLive: "ok"},
		{name: "stopping", app: app, st: state{terminating: true}, ready: &passing, wantReady: "not ready: stopping", wantLive: "ok"},
		{name: "draining after a stop", app: app, st: state{terminating: true, appExited: true}, wantReady: "not ready: stopping", wantLive: "ok"},
		{name: "app exited by itself", app: app, st: state{appExited: true}, wantReady: "not ready: the app exited", wantLive: "not live: the app exited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := c.st
			st.hooks = map[string]*hookRun{}
			if c.runningHook {
				st.hooks[hookPostStart] = &hookRun{}
			}
			s := &supervisor{cfg: &config{PostStart: make([]hooks.Command, c.postStart)}, app: c.app, st: st}
			s.h.ready = c.ready
			if ok, why := s.readiness(); why != c.wantReady || ok != (why == "ok") {
				t.Errorf("readiness = %v %q, want %q", ok, why, c.wantReady)
			}
			if ok, why := s.liveness(); why != c.wantLive || ok != (why == "ok") {
				t.Errorf("liveness = %v %q, want %q", ok, why, c.wantLive)
			}
		})
	}
}
