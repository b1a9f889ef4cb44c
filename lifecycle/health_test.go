package lifecycle

import (
	"context"
	"errors"
	"testing"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

// TestReadinessAndLiveness drives the machine's health decisions as plain
// values, without processes.
func TestReadinessAndLiveness(t *testing.T) {
	params := probe.Params{FailureThreshold: 3, SuccessThreshold: 1}
	// db is one readiness check, named db, after the attempts errs.
	db := func(errs ...error) probe.Set {
		s := plan.ProbeSet([]plan.Probe{{Kind: plan.ProbeReady, Name: "db", Params: params}})
		for _, err := range errs {
			s.Observe(0, err, false)
		}
		return s
	}
	cases := []struct {
		name        string
		st          state
		postStart   int // configured post-start commands
		runningHook bool
		ready       bool // one readiness check, named db
		wantReady   string
		wantLive    string
	}{
		{name: "pause mode", wantReady: "ok", wantLive: "ok"},
		{name: "pause mode stopping", st: state{terminating: true}, wantReady: "not ready: stopping", wantLive: "ok"},
		{name: "running", st: state{hasApp: true}, wantReady: "ok", wantLive: "ok"},
		{name: "post-start running", st: state{hasApp: true}, postStart: 1, runningHook: true, wantReady: "not ready: post-start running", wantLive: "ok"},
		{name: "post-start failed", st: state{hasApp: true}, postStart: 1, wantReady: "not ready: post-start failed", wantLive: "ok"},
		{name: "post-start done", st: state{hasApp: true, postStartOK: true}, postStart: 1, wantReady: "ok", wantLive: "ok"},
		{name: "probe not passing", st: state{hasApp: true, checks: db()}, ready: true, wantReady: "not ready: readiness probe db not passed yet", wantLive: "ok"},
		{name: "probe failing", st: state{hasApp: true, checks: db(errors.New("status 503"))}, ready: true, wantReady: "not ready: readiness probe db failing: status 503", wantLive: "ok"},
		{name: "probe passing", st: state{hasApp: true, checks: db(nil)}, ready: true, wantReady: "ok", wantLive: "ok"},
		{name: "stopping", st: state{hasApp: true, terminating: true, checks: db(nil)}, ready: true, wantReady: "not ready: stopping", wantLive: "ok"},
		{name: "pause mode, check failing", st: state{checks: db()}, ready: true, wantReady: "not ready: readiness probe db not passed yet", wantLive: "ok"},
		{name: "draining after a stop", st: state{hasApp: true, terminating: true, appExited: true}, wantReady: "not ready: stopping", wantLive: "ok"},
		{name: "app exited by itself", st: state{hasApp: true, appExited: true}, wantReady: "not ready: the app exited", wantLive: "not live: the app exited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newTestMachine(func(cfg *plan.Config) {
				cfg.PostStart = make([]hooks.Action, c.postStart)
				if c.ready {
					cfg.Checks = []plan.Probe{{Kind: plan.ProbeReady, Name: "db", Params: params}}
				}
			})
			m.st = c.st
			m.st.hooks = map[plan.HookKind]context.CancelCauseFunc{}
			if c.runningHook {
				m.st.hooks[plan.HookPostStart] = func(error) {}
			}
			if ok, why := m.readiness(); why != c.wantReady || ok != (why == "ok") {
				t.Errorf("readiness = %v %q, want %q", ok, why, c.wantReady)
			}
			if ok, why := m.liveness(); why != c.wantLive || ok != (why == "ok") {
				t.Errorf("liveness = %v %q, want %q", ok, why, c.wantLive)
			}
		})
	}
}
