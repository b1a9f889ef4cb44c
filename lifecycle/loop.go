package lifecycle

import (
	"cmp"
	"context"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/activation"
	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/user"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/notify"
	"github.com/tend-init/tend/oom"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/reaper"
	"github.com/tend-init/tend/signals"
	"github.com/tend-init/tend/subreaper"
	"github.com/tend-init/tend/terminal"
	"github.com/tend-init/tend/termination"
	"github.com/tend-init/tend/thread"
)

// Loop is tend's one event loop and everything it owns: the reaper, the
// signal channels, the app, the health server, and the state machine.
// Goroutines that run hooks or probes only send events; every decision is
// the machine's, taken on the loop goroutine.
type Loop struct {
	cfg         plan.Config
	log         *logger.Logger
	m           *machine
	reap        *reaper.Reaper
	sigs        *signals.Channels
	app         *reaper.Child   // nil in pause mode
	server      *health.Server  // nil without a health address
	rtDone      <-chan struct{} // closed once the realtime signals are registered
	pid1        bool
	events      chan event         // hook and probe results from their goroutines
	orphans     atomic.Uint64      // reaped processes nobody subscribed to (onOrphan); read from anywhere
	stopProbe   context.CancelFunc // ends every check (stopProbes)
	stopWaiting context.CancelFunc // ends --wait-for's attempts (wait.go)
	probeCtx    context.Context    // nil until the first check starts
	relay       *hooks.Relay       // hooks' output on its way to tend's stdout and stderr; nil until the first hook
	ctty        terminal.Attach    // whether the app takes stdin as its controlling terminal, or why not (plan.GroupSession)
	childDir    string             // where hooks and exec probes start once tend has left it for / (ChdirRoot)
	exits       logger.Exits       // what the last Reap collected, for the trace
	oom         oom.Watch          // OOM kills in tend's memory cgroup
	sockets     activation.Sockets // socket activation: the sockets offered to tend, until the app has them
	note        *notify.Link       // sd_notify, outward and inward (package notify; notifystate.go)
	stopWatch   func()             // ends the --reload-on watcher (reload.go)
}

// New performs the set-up in the order that loses nothing: the parent-death
// signal, the subreaper bit, the health listener, the signal handlers, and
// only then the app. An error is a set-up failure; ExitCode gives its code.
func New(cfg plan.Config, stderr io.Writer) (l *Loop, err error) {
	signals.GuardPipe() // before the first log line
	l = &Loop{
		cfg:         cfg,
		log:         logger.NewAsync(stderr, cfg.Verbosity, cfg.LogFormat), // a slow stderr never holds up the loop
		pid1:        os.Getpid() == 1,
		events:      make(chan event, 16),
		stopProbe:   func() {},
		stopWaiting: func() {},
		stopWatch:   func() {},
	}
	log := l.log // l is nil by the time a failed New returns
	defer func() {
		if err != nil {
			log.Flush(logFlush) // what set-up logged comes before main's error line
		}
	}()
	l.reap = reaper.New(l.onOrphan)
	if cfg.Trace {
		l.log.SetTrace(cfg.TraceTag)
		l.reap.Observe(l.exits.Observe)
	}
	// First, before anything can fork: the sockets become close-on-exec
	// and the LISTEN_* variables leave the hooks' and probes' environment.
	env := os.Environ()
	if cfg.SocketActivation {
		env = l.sockets.Receive(l.log, env)
	}
	loop := l // l is nil by the time a failed New returns
	defer func() {
		if err != nil || len(cfg.Args) == 0 {
			loop.sockets.Close() // no app will ever have them: a failed set-up, pause mode
		}
		if err != nil {
			loop.note.Close()
		}
	}()
	if l.note, l.sockets.AppEnv, env, err = notify.Setup(l.log, cfg.Notify, cfg.NotifyPass, l.sockets.AppEnv, env); err != nil {
		return nil, err
	}
	l.m = newMachine(&l.cfg, l.log, l, time.Now, env)
	if err := l.setUpProcess(); err != nil {
		return nil, err
	}
	l.listen()
	l.reserveThreads()
	if err := l.startUnlessWaiting(); err != nil {
		return nil, err
	}
	l.afterAppStart()
	return l, nil
}

// setUpProcess sets what tend itself is before anything starts: the
// parent-death signal, the subreaper bit, the OOM watch and the health
// listener.
func (l *Loop) setUpProcess() error {
	cfg := &l.cfg
	if err := signals.SetParentDeath(cfg.Pdeathsig); err != nil {
		return err
	}
	if err := subreaper.Ensure(l.log, cfg.Subreaper, l.pid1, cfg.WarnNotReaper); err != nil {
		return err
	}
	l.oom.Start(l.log, l.pid1, l.reap.AroundFork) // before any start: every child gets tend's original oom_score_adj
	if cfg.HealthAddr != "" {
		srv, err := health.Listen(cfg.HealthAddr, cfg.Version)
		if err != nil {
			return err
		}
		l.server = srv
		l.m.serve = true
		l.log.Infof("health endpoint on http://%s", srv.Addr())
	}
	return nil
}

// reserveThreads creates every thread tend will ever need while no app can
// fill the pid limit yet (package thread).
func (l *Loop) reserveThreads() {
	began := time.Now()
	want := thread.For(&l.cfg)
	have := thread.Reserve(want)
	l.log.Debugf("threads: %d, created before the app starts in %s (budget %d, GOMAXPROCS=1; -1: /proc unreadable)", have, time.Since(began).Round(time.Microsecond), want)
}

// startUnlessWaiting starts the --reload-on watcher and the app, unless a
// wait or pre-start comes first: then the app starts from the loop once
// they are done. In pause mode it leaves the directory at once.
func (l *Loop) startUnlessWaiting() error {
	if err := l.watchReload(); err != nil {
		l.closeServer()
		return err
	}
	cfg := &l.cfg
	if len(cfg.Args) > 0 && len(cfg.WaitFor) == 0 && len(cfg.PreStart) == 0 {
		if err := l.startAppNow(); err != nil {
			l.stopWatch()
			l.closeServer()
			return err
		}
	}
	if len(cfg.Args) == 0 && cfg.ChdirRoot {
		// Pause mode: no app to wait for; catatonit -P leaves its
		// directory too, which podman later unmounts (catatonit.c, main).
		l.leaveDir()
	}
	return nil
}

// afterAppStart caps tend's queue of realtime signals after the app's
// start, which inherits the limit tend was given, and registers the rest
// (signals.Channels.AfterAppStart).
func (l *Loop) afterAppStart() {
	if err := l.sigs.CapQueue(); err != nil {
		l.log.With(logger.ErrField(err)).Warnf("cannot cap tend's queue of realtime signals (a flood of them can delay a stop): prlimit: %v", err)
	}
	l.rtDone = l.sigs.AfterAppStart()
}

// listen registers the signals tend catches, which Behaviour says, before
// anything starts; then, for a new session, gives up tend's terminal.
func (l *Loop) listen() {
	cfg := &l.cfg
	if cfg.ForwardCatchable {
		l.sigs = signals.ListenCatchable(cfg.StopSignal, !cfg.OwnsSockets(), cfg.ForwardURG)
		if !cfg.ForwardURG {
			l.log.WarnAlways("URG is not forwarded: Go's asynchronous preemption is on in this tend, so the runtime sends itself URG; " +
				"build tend as make build does (asyncpreemptoff=1), or run it with GODEBUG=asyncpreemptoff=1")
		}
	} else {
		l.sigs = signals.Listen(cfg.StopSignal)
		if !l.sigs.ForwardsJobControl() {
			l.log.Debugf("TTIN and TTOU are ignored, not forwarded: tend does not lead its session and has a controlling terminal, so they may be its own job's stop (README, Signals)")
		}
	}
	if cfg.AppGroup == plan.GroupSession {
		// After Listen: giving up the terminal sends tend HUP and CONT.
		l.ctty = l.detachTerminal()
	}
	for _, sig := range l.sigs.Ignored {
		l.log.Debugf("%s was ignored when tend started: it stays ignored, and the app inherits that", signals.Name(sig))
	}
}

func (l *Loop) startAppNow() error {
	path, err := reaper.LookPath(l.cfg.Args[0])
	if err != nil {
		return err
	}
	cmd := terminal.Command(path, l.cfg.Args)
	cmd.Env = l.sockets.AppEnv
	if attr := terminal.GroupAttr(l.cfg.AppGroup, l.ctty); attr != nil {
		cmd.SysProcAttr = attr
	}
	user.RunAs(cmd, l.cfg.User)
	start := l.sockets.Starter(l.reap.Start, l.sigs.Ignored)
	app, err := terminal.Start(start, cmd, &l.ctty)
	l.sockets.Close()
	if err != nil {
		if serr := user.SwitchError(l.cfg.User, err); serr != nil {
			return serr
		}
		return reaper.StartError(l.cfg.Args[0], err)
	}
	l.app = app
	l.log.Infof("started %q as pid %d", l.cfg.Args[0], app.Pid)
	l.log.TraceStarted(app.Pid, l.cfg.AppGroup == plan.GroupSession, l.ctty.OK, l.ctty.Errno)
	if l.cfg.ChdirRoot {
		l.leaveDir()
	}
	return nil
}

// logFlush bounds how long tend waits, on its way out, for stderr to take
// the lines still queued.
const logFlush = time.Second

// Orphans is how many processes other than the app and hooks were reaped.
func (l *Loop) Orphans() uint64 { return l.orphans.Load() }

// onOrphan runs inside Reap, on the loop's goroutine and under the reaper's
// lock, for each orphan the moment it is reaped. It only counts and logs: a
// log line is a send to the Logger's queue, which never blocks.
func (l *Loop) onOrphan(e reaper.Exit) {
	l.orphans.Add(1)
	l.oom.Exit(e, "")
	if l.cfg.WarnOnReap {
		l.log.Warnf("Reaped zombie process with pid=%d", e.Pid)
	}
}

// Run is the event loop. It returns tend's exit code once the app has
// exited, the tree has drained and the post-stop hooks have run, or once a
// stop in pause mode has done the same.
func (l *Loop) Run(ctx context.Context) int {
	defer l.log.Flush(logFlush)
	defer l.stopProbes()
	defer l.stopWait()
	defer l.stopWatch()
	defer l.closeServer()
	defer l.note.Close()
	beat, stopBeat := l.serve()
	defer stopBeat()
	in := inputs{beat: beat, ctxDone: ctx.Done(), inbox: l.note.Inbox(), timer: time.NewTimer(time.Hour)}
	in.timer.Stop()
	pid := 0
	if l.app != nil {
		in.appDone, pid = l.app.Done(), l.app.Pid
	}
	l.m.begin(pid)
	l.tellManager()
	// The sweep after the start: SIGCHLD was registered before the fork
	// (docs/design.md, "When signals are registered", step 1), so this
	// only catches what exited in between.
	none, err := l.reapNow()
	l.m.handle(reaped{none: none, err: err})
	for l.m.st.phase != phaseDone {
		in.arm(l.m.deadline())
		ev := l.next(&in)
		if ev == nil {
			continue
		}
		started := l.app
		l.m.handle(ev)
		l.tellManager()
		if started == nil && l.app != nil {
			// Started by the event just handled (after pre-start).
			in.appDone = l.app.Done()
		}
	}
	return l.finish()
}

// inputs are the channels Run waits on besides the Loop's own; each is
// set to nil once it has said its last.
type inputs struct {
	appDone <-chan reaper.Exit
	beat    <-chan time.Time
	ctxDone <-chan struct{}
	inbox   <-chan notify.Message
	timer   *time.Timer // one timer serves every deadline the machine keeps
	armed   time.Time
}

// arm sets the timer to the machine's earliest deadline d, when it moved.
func (in *inputs) arm(d time.Time) {
	if d.Equal(in.armed) {
		return
	}
	in.timer.Stop()
	in.armed = d
	if !d.IsZero() {
		in.timer.Reset(time.Until(d))
	}
}

// next waits for the next event for the machine; nil for an input the
// loop dealt with itself.
func (l *Loop) next(in *inputs) event {
	select {
	case sig := <-l.sigs.Stop:
		return sigEvent{sig.(unix.Signal)}
	case sig := <-l.sigs.Forward:
		return sigEvent{sig.(unix.Signal)}
	case <-l.sigs.Child:
		// Signals coalesce: Reap drains every exit there is.
		none, err := l.reapNow()
		return reaped{none: none, err: err}
	case e := <-in.appDone:
		in.appDone = nil
		l.app.Release()
		l.oom.Exit(e, l.cfg.Args[0])
		return appExit{code: e.Code()}
	case ev := <-l.events:
		return ev
	case <-in.timer.C:
		in.armed = time.Time{}
		return tick{}
	case <-l.rtDone:
		l.rtDone = nil
		l.log.Debugf("realtime signals registered")
	case <-in.beat:
		l.oom.Look()
		l.m.publish()
	case <-in.ctxDone:
		in.ctxDone = nil
		return cancelled{}
	case <-l.note.Watchdog():
		l.watchdogPing()
	case msg, ok := <-in.inbox:
		if !ok {
			in.inbox = nil
			l.note.InboxClosed()
			return nil
		}
		return notified{msg}
	}
	return nil
}

// serve starts the health server, when there is one, and the heartbeat
// that republishes its status; stop ends the heartbeat.
func (l *Loop) serve() (beat <-chan time.Time, stop func()) {
	if l.server == nil {
		return nil, func() {}
	}
	go func() {
		if err := l.server.Serve(); err != nil {
			l.log.Errorf("health server: %v", err)
		}
	}()
	t := time.NewTicker(heartbeat)
	return t.C, t.Stop
}

// finish is Run's last word: an OOM kill seen late, the termination
// message when tend decided the outcome, and the exit code.
func (l *Loop) finish() int {
	l.oom.Look()
	if why := cmp.Or(l.m.st.reason, l.oom.Reason()); why != "" {
		termination.Report(l.log, l.cfg.TerminationMessagePath, why)
	}
	return l.m.exitCode()
}

func (l *Loop) closeServer() {
	if l.server != nil {
		_ = l.server.Close() // only fails if already closed
	}
}
