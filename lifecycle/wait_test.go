package lifecycle

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"golang.org/x/sys/unix"
)

// deps are two dependencies, one named and one not.
func deps(c *plan.Config) {
	c.WaitFor = []plan.Wait{
		{Name: "db", Spec: "tcp://db:5432", Handler: probe.TCP{Addr: "db:5432"}, Timeout: time.Second},
		{Name: "tcp://cache:6379", Spec: "tcp://cache:6379", Handler: probe.TCP{Addr: "cache:6379"}, Timeout: time.Second},
	}
	c.WaitTimeout = 30 * time.Second
}

// TestMachineWait drives the waiting phase: it comes before pre-start and
// the app, ends when every dependency has passed once, and ends with no
// app at a stop signal or at --wait-timeout (69), post-stop running in
// every case.
func TestMachineWait(t *testing.T) {
	cmd := []hooks.Action{hooks.Command{Shell: "true"}}
	waits := []string{"wait db=tcp://db:5432 env=TEND_HOOK=wait", "wait tcp://cache:6379 env=TEND_HOOK=wait"}
	app := func(c *plan.Config) { deps(c); c.Args = []string{"app"} }
	cases := []struct {
		name    string
		cfg     func(*plan.Config)
		steps   []step
		phases  string
		acts    []string
		code    int
		reason  string
		stopEnv string // what post-stop is told in TEND_STOP_*; "" when no stop hook ran
	}{
		{
			name: "every dependency up, then the app",
			cfg:  app,
			steps: []step{ev(waitDone{idx: 0, err: errBoom}), ev(waitDone{idx: 1}), after(time.Second, waitDone{idx: 0}),
				ev(waitDone{idx: 1}), ev(sigEvent{unix.SIGTERM}), ev(appExit{143})},
			phases: "waiting starting running stopping draining post-stop done",
			acts:   append(append([]string{}, waits...), "stop wait", "start app", "stop probes", "signal SIGTERM", "signal SIGCONT"),
			code:   143,
		},
		{
			name:   "the wait comes before pre-start",
			cfg:    func(c *plan.Config) { app(c); c.PreStart = cmd },
			steps:  []step{ev(waitDone{idx: 0}), ev(waitDone{idx: 1}), ev(hookDone{kind: plan.HookPreStart})},
			phases: "waiting pre-start starting running",
			acts:   append(append([]string{}, waits...), "stop wait", "start pre-start deadline=none env=TEND_HOOK=pre-start", "start app"),
		},
		{
			name:   "TERM while waiting: no app, post-stop runs, exit 0",
			cfg:    func(c *plan.Config) { app(c); c.PostStop = cmd },
			steps:  []step{ev(waitDone{idx: 0}), ev(sigEvent{unix.SIGTERM}), ev(waitDone{idx: 1}), ev(hookDone{kind: plan.HookPostStop})},
			phases: "waiting draining post-stop done",
			acts:   append(append([]string{}, waits...), "stop wait", "start post-stop deadline=none env=TEND_HOOK=post-stop,TEND_EXIT_CODE=0"),
		},
		{
			name: "timeout: no app, exit 69 naming what still fails",
			cfg:  func(c *plan.Config) { app(c); c.PostStop = cmd },
			steps: []step{ev(waitDone{idx: 1}), ev(waitDone{idx: 0, err: errBoom}), after(5*time.Second, tick{}),
				after(25*time.Second, tick{}), ev(hookDone{kind: plan.HookPostStop})},
			phases:  "waiting draining post-stop done",
			acts:    append(append([]string{}, waits...), "stop wait", "start post-stop deadline=none env=TEND_HOOK=post-stop,TEND_EXIT_CODE=0"),
			code:    plan.ExitStartHookFailed,
			reason:  "--wait-for: not up after 30s: db (boom)",
			stopEnv: "post-stop: TEND_STOP_REASON=wait-timeout,TEND_STOP_DETAIL=db (boom)",
		},
		{
			name:   "pause mode waits too",
			cfg:    deps,
			steps:  []step{ev(waitDone{idx: 0}), ev(waitDone{idx: 1})},
			phases: "waiting pause",
			acts:   append(append([]string{}, waits...), "stop wait"),
		},
		{
			// Was an index panic in startAppNow: pre-start succeeded and
			// the machine started an app that does not exist.
			name:   "pre-start in pause mode starts no app",
			cfg:    func(c *plan.Config) { c.PreStart = cmd },
			steps:  []step{ev(hookDone{kind: plan.HookPreStart}), ev(sigEvent{unix.SIGTERM})},
			phases: "pre-start pause stopping draining post-stop done",
			acts:   []string{"start pre-start deadline=none env=TEND_HOOK=pre-start", "stop probes"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(c.cfg)
			m.begin(0)
			for i, s := range c.steps {
				r.clock = r.clock.Add(s.wait)
				m.handle(s.ev)
				if m.st.internalErrors != 0 {
					t.Fatalf("step %d (%T): internal error:\n%s", i, s.ev, r.log.String())
				}
			}
			if got := strings.Join(r.phases(), " "); got != c.phases {
				t.Errorf("phases %q, want %q\n%s", got, c.phases, r.log.String())
			}
			if !reflect.DeepEqual(r.acts, c.acts) {
				t.Errorf("actions:\n got %q\nwant %q", r.acts, c.acts)
			}
			if code := m.exitCode(); strings.HasSuffix(c.phases, "done") && code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
			if m.st.reason != c.reason {
				t.Errorf("termination message %q, want %q", m.st.reason, c.reason)
			}
			if c.stopEnv != "" {
				if got := strings.Join(r.stopEnv, " "); got != c.stopEnv {
					t.Errorf("stop hooks told %q, want %q", got, c.stopEnv)
				}
			}
		})
	}
}

// TestWaitHealthAndProgress: while waiting, /livez is 200 and /readyz 503
// naming what is awaited; the log says it every probe.WaitProgress with the time
// waited; the machine's deadline is the next of those lines, then the
// timeout.
func TestWaitHealthAndProgress(t *testing.T) {
	m, r := newTestMachine(func(c *plan.Config) { deps(c); c.Args = []string{"app"}; c.WaitTimeout = 7 * time.Second })
	m.begin(0)
	m.handle(waitDone{idx: 0, err: errBoom})
	st := r.published
	if !st.Live || st.Ready || st.ReadyReason != "not ready: waiting for db=tcp://db:5432, tcp://cache:6379" {
		t.Fatalf("while waiting: live %v, ready %v %q", st.Live, st.Ready, st.ReadyReason)
	}
	if got, want := m.deadline(), r.clock.Add(probe.WaitProgress); !got.Equal(want) {
		t.Fatalf("deadline %v, want the progress line's %v", got, want)
	}
	r.clock = r.clock.Add(probe.WaitProgress)
	m.handle(tick{})
	if want := "WARN: waiting for db=tcp://db:5432, tcp://cache:6379, 5s: db (boom), tcp://cache:6379 (no result yet)"; !strings.Contains(r.log.String(), want) {
		t.Fatalf("no progress line %q in:\n%s", want, r.log.String())
	}
	m.handle(waitDone{idx: 1})
	if got := m.awaited(); got != "waiting for db=tcp://db:5432" {
		t.Fatalf("awaited %q", got)
	}
	if got, want := m.deadline(), r.clock.Add(2*time.Second); !got.Equal(want) {
		t.Fatalf("deadline %v, want the timeout's %v", got, want)
	}
	m.handle(waitDone{idx: 0})
	if m.st.phase != phaseRunning || m.awaited() != "" || !m.deadline().IsZero() {
		t.Fatalf("after the wait: phase %s, awaited %q, deadline %v", m.st.phase, m.awaited(), m.deadline())
	}
}

// TestWaitManagerStatus: while waiting, the STATUS= line tend sends its
// own manager (sd_notify) names what is awaited, and READY=1 is not sent.
func TestWaitManagerStatus(t *testing.T) {
	m, _ := newTestMachine(func(c *plan.Config) { deps(c); c.Args = []string{"app"} })
	m.begin(0)
	m.handle(waitDone{idx: 1})
	ready, stopping, status := m.managerState()
	if ready || stopping || status != "waiting for db=tcp://db:5432" {
		t.Fatalf("ready %v, stopping %v, STATUS=%q; want not ready, not stopping, what is awaited", ready, stopping, status)
	}
}
