// Package plan is what tend was asked to do: the Config that a mode's
// command line (package config) fills and the event loop (package
// lifecycle) carries out, with its defaults, the probe and hook kinds,
// the behaviours a mode chooses, and the exit codes tend chooses itself.
// Configuration flows one way: nothing reads a flag after it is parsed.
package plan

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/user"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
)

// Config is everything tend was asked to do. Package config fills it from
// flags and variables, starting from Default; nothing reads a flag later.
type Config struct {
	Args       []string // the app and its arguments; empty only with Pause
	Pause      bool     // no app: reap and wait for a stop (--pause, catatonit's -P)
	Subreaper  bool     // set the child-subreaper bit (tini -s)
	KillGroup  bool     // forward to the app's process group (tini -g)
	WarnOnReap bool     // warn for each reaped orphan (tini -w)
	Verbosity  int      // logger.LevelError..logger.LevelDebug
	Pdeathsig  unix.Signal
	RemapExit  [256]bool // app codes turned into 0 (tini -e)
	Rewrite    signals.Rewrite

	// LogFormat is how tend writes its own lines: logger.Text (tini's, the
	// default) or logger.JSON.
	LogFormat logger.Format
	// Version is tend's: HTTP probes and hooks send it in their User-Agent
	// (probe.UserAgent), and /metrics shows it in tend_build_info.
	Version string

	// WaitFor are the dependencies awaited before pre-start and the app
	// (--wait-for): every one at once, each retried with a short capped
	// backoff until it passes once. WaitTimeout bounds them all (0: no
	// bound); at it, no app starts and tend exits ExitStartHookFailed.
	WaitFor     []Wait
	WaitTimeout time.Duration

	// PreStart runs before the app starts, as tend's own user (set-up
	// such as fixing a volume's ownership before --user drops to the
	// app's user, as an official image's docker-entrypoint.sh does); if
	// one fails the app never starts and tend exits 69.
	PreStart     []hooks.Action
	PostStart    []hooks.Action
	PreStop      []hooks.Action
	PostStop     []hooks.Action
	HookTimeout  time.Duration // bounds each hook action
	GracePeriod  time.Duration // from the start of a stop to SIGKILL; its default: ResolveGrace
	DrainTimeout time.Duration // what the rest of the tree gets after the app
	// OwnStopGrace, when not 0, replaces GracePeriod for a stop tend
	// begins itself (post-start or a liveness or startup probe failed),
	// which no runtime's timer bounds. Set by ResolveGrace.
	OwnStopGrace time.Duration
	// RuntimeKills: a stop begun by a received TERM, INT or stop signal
	// (the runtime's) gets no SIGKILL from tend, for the app or the tree
	// left after it: the runtime's own SIGKILL ends it, as under tini.
	// GracePeriod still cuts pre-stop and sends the stop signal then.
	// Set by ResolveGrace.
	RuntimeKills bool
	// StopSignal is what a stop sends the app (Kubernetes' lifecycle
	// .stopSignal, Docker's STOPSIGNAL); received, it begins a stop as
	// TERM and INT do.
	StopSignal unix.Signal
	// StopSignalSet says the user chose StopSignal (--stop-signal): then
	// every stop sends it, whatever began the stop, received TERM and INT
	// included, as the kubelet sends a container's stop signal whatever
	// asked for the pod's deletion. Unset, a received TERM or INT is what
	// the app gets, as with tini.
	StopSignalSet bool
	// User, when set, is who the app, post-start, pre-stop and exec
	// probes run as (--user); nil: as tend.
	User *user.User
	// MinShutdownWindow is the least time the app gets between the stop
	// signal and SIGKILL, even when pre-stop used up the grace period: the
	// kubelet's minimumGracePeriodInSeconds (kuberuntime_container.go,
	// "always give containers a minimal shutdown window").
	MinShutdownWindow time.Duration
	// TerminationMessagePath receives one line when tend, not the app,
	// decided the outcome; "" turns it off (Kubernetes'
	// terminationMessagePath).
	TerminationMessagePath string

	// ReloadOn are files and directories whose bytes, once changed, reload
	// the app (--reload-on): the Reload actions when there are any, else
	// ReloadSignal to the app. Never during a stop, never two at once.
	ReloadOn     []string
	ReloadSignal unix.Signal
	Reload       []hooks.Action

	// StopExitCode, when StopExitCodeSet (--stop-exit-code), is tend's
	// code after a stop the runtime asked for (a received TERM, INT or
	// stop signal) that ended with the app dead of the stop signal or
	// exiting by its own handler. Stops tend began keep their codes, and
	// so do crashes, unlike -e 143.
	StopExitCode    int
	StopExitCodeSet bool

	// SocketActivation: sockets handed to tend by systemd or podman
	// (LISTEN_PID naming tend) go to the app alone, with LISTEN_PID set
	// to the app's pid, as catatonit does; hooks and probes get neither
	// them nor the variables. Off, they pass through untouched.
	SocketActivation bool

	Behaviour

	HealthAddr string // "" serves nothing
	// Checks are the app probes, each named, of one kind, with its own
	// settings. Several of a kind must all pass.
	Checks []Probe
	// Probe holds the settings a check gets unless its kind's flags or
	// its JSON form say otherwise.
	Probe probe.Params

	// Notify gives the app a NOTIFY_SOCKET of tend's own (--notify): its
	// READY=1 is a readiness condition beside the readiness probes,
	// RELOADING=1 withdraws it until the next READY=1, and its STATUS=
	// shows in /readyz?verbose (package notify).
	Notify bool
	// NotifyWatchdog, with Notify, is how long the app may go without
	// WATCHDOG=1 once its watchdog is armed (its first READY=1 or
	// WATCHDOG=1, as systemd arms WatchdogSec= when a Type=notify service
	// is running); missed, tend stops the app and exits 75, as for a
	// failed liveness probe. 0: no watchdog.
	NotifyWatchdog time.Duration
	// NotifyPass lets the app inherit tend's own NOTIFY_SOCKET and
	// WATCHDOG_* (--notify-pass), so that the app, not tend, speaks to
	// podman or systemd, as under tini; tend then sends nothing there.
	// Off, only tend speaks to them, and neither the app nor a hook nor
	// a probe sees the variables.
	NotifyPass bool
}

// Probe is one named probe.
type Probe struct {
	Kind    ProbeKind
	Name    string        // as in /readyz?verbose and the probe label of /metrics
	Handler probe.Handler // what one attempt does (Kubernetes' ProbeHandler)
	Params  probe.Params
	// GracePeriod, when not 0, replaces Config.GracePeriod for a stop this
	// check's failure begins: a liveness or startup probe's own
	// terminationGracePeriodSeconds (Kubernetes 1.28 GA). The kubelet's
	// setTerminationGracePeriod (pkg/kubelet/kuberuntime/
	// kuberuntime_container.go) uses the probe's value when the kill's
	// reason is that probe, and the pod's otherwise.
	GracePeriod time.Duration
}

// Wait is one dependency awaited before the app starts: a probe spec,
// attempted until it passes once.
type Wait struct {
	Name    string        // as given before "=", else the spec itself
	Spec    string        // as given, for the log: "tcp://db:5432"
	Handler probe.Handler // one attempt, as a probe's
	Timeout time.Duration // bounds one attempt: the probe timeout, or the JSON form's own
}

// Default is the Config with every default, each defined here once; the
// flag help reads them from here.
func Default() Config {
	return Config{
		Verbosity: logger.LevelWarn, // tini's default: warnings
		Behaviour: Behaviour{
			// systemd's: a stopped app can act on the stop signal at once.
			ContAfterStop: true,
			// The kubelet's and docker stop's: a stop always ends.
			KillAtGrace: true,
			// tini's: reaping needs PID 1 or the subreaper bit.
			WarnNotReaper: true,
		},
		// Whatever the mode: a peer that passes the variables on
		// unchanged leaves its app ignoring the sockets; catatonit's
		// behaviour is the one that works.
		SocketActivation: true,
		Rewrite:          signals.Rewrite{},
		HookTimeout:      30 * time.Second,
		// The whole stop must end inside the runtime's own: docker stop
		// and podman stop SIGKILL the container 10 s after their TERM,
		// the kubelet after terminationGracePeriodSeconds (30 s by
		// default). The rule (README, "The stop fits the runtime's"):
		// grace period + min-shutdown-window + drain timeout +
		// PostStopFloor = 9.5 s, half a second under docker's 10.
		// post-stop is cut at that sum (termination.Stop.PostStopEnd); an explicit
		// --grace-period moves it with it. Without a post-stop hook
		// nothing needs that room, and ResolveGrace derives the rest.
		GracePeriod: DefaultGracePeriod,
		// A dependency that is not up in a minute is reported (exit 69)
		// and the orchestrator's restart backoff takes over; wait-for-it
		// waits 15 s, dockerize 10 s. 0 waits for ever.
		WaitTimeout:  time.Minute,
		DrainTimeout: time.Second,
		StopSignal:   unix.SIGTERM, // as docker stop and the kubelet
		// Kubernetes' minimumGracePeriodInSeconds.
		MinShutdownWindow: 2 * time.Second,
		// Set by package main only when /dev/termination-log exists and
		// is writable, as in a Kubernetes container.
		TerminationMessagePath: "",
		// nginx's, Prometheus' and HAProxy's "read your configuration
		// again".
		ReloadSignal: unix.SIGHUP,
		// Kubernetes' probe defaults (core/v1 Probe): every 10 s, 1 s
		// timeout, no initial delay, 3 failures to fail, 1 success to pass.
		Probe: probe.Params{
			Period:           10 * time.Second,
			Timeout:          time.Second,
			InitialDelay:     0,
			FailureThreshold: 3,
			SuccessThreshold: 1,
		},
	}
}

// DefaultGracePeriod is --grace-period's default: what pre-stop may take
// of docker stop's 10 s, and with a post-stop hook the time to SIGKILL.
const DefaultGracePeriod = 6 * time.Second

// KubeletGracePeriod is the kubelet's default terminationGracePeriodSeconds
// (k8s.io/api/core/v1 DefaultTerminationGracePeriodSeconds = 30, set by
// SetDefaults_PodSpec in pkg/apis/core/v1/defaults.go): how long the
// kubelet's killContainer lets a container run after its stop signal when
// it, not an API client, decided to stop it (a failed liveness probe,
// whose own terminationGracePeriodSeconds wins when set:
// setTerminationGracePeriod in pkg/kubelet/kuberuntime/
// kuberuntime_container.go).
const KubeletGracePeriod = 30 * time.Second

// ResolveGrace derives the grace period's default from what is configured,
// once, after the flags and variables are read; given says --grace-period
// (TEND_GRACE_PERIOD) was given. The rule: tend must never cut the app
// earlier than tini would under the same runtime (tini never sends
// SIGKILL).
//   - given: GracePeriod for every stop, SIGKILL at its end, as set.
//   - a post-stop hook: DefaultGracePeriod for every stop, as given,
//     since post-stop needs the room inside docker stop's 10 s.
//   - otherwise a stop the runtime asked for (TERM, INT, the stop signal
//     received) gets no SIGKILL from tend (RuntimeKills): the runtime's
//     own ends it, at the moment it would end it under tini; pre-stop is
//     still cut at GracePeriod. A stop tend begins itself has no runtime
//     timer behind it, so it ends in SIGKILL after KubeletGracePeriod, as
//     the kubelet's own liveness kill does (or the probe's own
//     terminationGracePeriodSeconds).
func (c *Config) ResolveGrace(given bool) {
	c.OwnStopGrace, c.RuntimeKills = 0, false
	if given || len(c.PostStop) > 0 {
		return
	}
	c.OwnStopGrace, c.RuntimeKills = KubeletGracePeriod, true
}

// IsStopSignal says whether receiving sig begins a stop: TERM and INT
// always; so does StopSignal. WINCH or QUIT begin one only when --stop-signal
// names them: a terminal sends WINCH on every resize.
func (c *Config) IsStopSignal(sig unix.Signal) bool {
	return sig == unix.SIGTERM || sig == unix.SIGINT || sig == c.StopSignal
}

// OwnStopSignal is what a stop that tend begins itself sends the app:
// StopSignal after any -r rewrite, never a hard-coded TERM; 0 when a rule
// drops it.
func (c *Config) OwnStopSignal() unix.Signal {
	sig, ok := c.Rewrite.Apply(c.StopSignal)
	if !ok {
		return 0
	}
	return sig
}

// Exit codes that tend chooses itself. They are fixed so that an
// orchestrator can tell them apart, and -e never remaps them.
const (
	// ExitStartHookFailed: a pre-start or post-start hook failed, or a
	// --wait-for dependency was not up by --wait-timeout, so the app
	// never became usable (EX_UNAVAILABLE).
	ExitStartHookFailed = 69
	// ExitLivenessFailed: a liveness or startup probe failed; restart me
	// (EX_TEMPFAIL).
	ExitLivenessFailed = 75
)

// ExitCode is the code a set-up error exits with: the one it carries (126
// or 127 for a program that cannot run), else 1, as tini does.
func ExitCode(err error) int {
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return 1
}
