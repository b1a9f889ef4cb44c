package lifecycle

import (
	"os"
	"strings"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/notify"
)

// sd_notify, the loop's side (package notify speaks the protocol; the
// machine's side is in notifystate.go).
//
// Outward: when tend's environment has NOTIFY_SOCKET (podman
// --sdnotify=container, Quadlet's Notify=, a Type=notify unit), tend tells
// that manager READY=1 once the app is ready, STATUS= for what it waits
// on, STOPPING=1 when a stop begins, and WATCHDOG=1 at half WATCHDOG_USEC
// while liveness holds. The app, hooks and probes do not see the variables
// unless --notify-pass gives them to the app, and then tend says nothing.
//
// Inward (--notify): the app gets a NOTIFY_SOCKET of tend's own; what it
// sends reaches the loop as notified events from the receiver's goroutine,
// which only sends values (convention A.4).

// notifier is what the Loop holds for sd_notify.
type notifier struct {
	out *notify.Sender // nil: nobody waits on tend, or --notify-pass
	// dog ticks at half of WATCHDOG_USEC; nil without a watchdog.
	dog     <-chan time.Time
	stopDog func()
	in      *notify.Receiver // nil without --notify

	ready, stopping bool   // READY=1 and STOPPING=1 sent (or tried)
	said            string // the last STATUS= sent
	failed          int    // sends that failed, for the log
}

// notifyParents is where the app's socket directory goes, first usable
// first: TMPDIR or /tmp, then /run and /dev/shm, which runtimes mount in
// a container even when the image (FROM scratch) has no /tmp.
var notifyParents = []string{"", "/run", "/dev/shm"}

// setupNotify reads NOTIFY_SOCKET and WATCHDOG_*, opens the app's socket
// with --notify, sets the app's environment, and returns env, the hooks'
// and probes' environment, without the variables. It runs in New, before
// anything can fork.
func (l *Loop) setupNotify(env []string) ([]string, error) {
	cfg, n := &l.cfg, &l.note
	_, outer := os.LookupEnv(notify.EnvSocket)
	if !outer && !cfg.Notify {
		return env, nil // nothing to do, nothing to strip: the app's environment stays tend's
	}
	appEnv := l.sockets.AppEnv
	if appEnv == nil {
		appEnv = os.Environ()
	}
	if cfg.NotifyPass {
		l.log.Infof("notify: the app inherits %s=%s (--notify-pass); tend tells it nothing", notify.EnvSocket, excerpt.Quote(os.Getenv(notify.EnvSocket)))
	} else {
		appEnv = notify.StripEnv(appEnv)
		l.setupSender()
	}
	if cfg.Notify {
		self := os.Getpid()
		o := notify.Options{
			// systemd's NotifyAccess=all, for the container: any of its
			// processes (the kernel gives pid 0, refused by the receiver,
			// to a sender outside tend's pid namespace), but not tend.
			Allow: func(pid int) bool { return pid != self },
		}
		var err error
		for _, o.Parent = range notifyParents {
			if o.Parent != "" {
				if fi, serr := os.Stat(o.Parent); serr != nil || !fi.IsDir() {
					continue
				}
			}
			if n.in, err = notify.Listen(o); err == nil {
				break
			}
		}
		if n.in == nil {
			return nil, err
		}
		appEnv = append(appEnv, n.in.Env())
		l.log.Infof("notify: the app's %s (--notify): its READY=1 is a readiness condition", n.in.Env())
	}
	l.sockets.AppEnv = appEnv
	return notify.StripEnv(env), nil
}

// setupSender opens the manager's socket and its watchdog. A bad value is
// a warning, not a set-up failure: the app can run all the same, and the
// manager, which waits in vain, says so in its own way.
func (l *Loop) setupSender() {
	n := &l.note
	out, err := notify.FromEnv(os.LookupEnv)
	if err != nil {
		l.log.Warnf("notify: %v: tend cannot tell its manager anything", err)
	}
	if out == nil {
		return
	}
	n.out = out
	period, err := notify.WatchdogFromEnv(os.LookupEnv, os.Getpid())
	if err != nil {
		l.log.Warnf("notify: %v: tend sends no WATCHDOG=1", err)
	}
	if period > 0 {
		t := time.NewTicker(notify.Interval(period))
		n.dog, n.stopDog = t.C, t.Stop
	}
	l.log.Infof("notify: tend tells %s READY=1 once the app is ready (watchdog %s)", excerpt.Quote(out.Addr()), period)
}

// closeNotify releases both sockets and the ticker; Run defers it, and a
// failed New calls it.
func (l *Loop) closeNotify() {
	n := &l.note
	if n.stopDog != nil {
		n.stopDog()
	}
	_ = n.out.Close() // a datagram socket: nothing is queued on tend's side
	if n.in != nil {
		_ = n.in.Close() // removes the socket's directory; a leftover in /tmp is harmless
	}
}

// inbox is the channel the loop reads the app's notifications from; nil
// without --notify.
func (l *Loop) inbox() <-chan notify.Message {
	if l.note.in == nil {
		return nil
	}
	return l.note.in.C
}

// inboxClosed: the receiver stopped on a socket error. What the app said
// so far stands; the app can say nothing more.
func (l *Loop) inboxClosed() {
	l.log.Errorf("notify: the app's socket stopped: %v; what the app said last stands", l.note.in.Err())
}

// tellManager sends the manager what changed since the last event: READY=1
// the first time tend is ready, STOPPING=1 when a stop begins, and STATUS=
// whenever what tend waits on changes. It runs on the loop after every
// event; each send is one non-blocking datagram.
func (l *Loop) tellManager() {
	n := &l.note
	if n.out == nil {
		return
	}
	ready, stopping, status := l.m.managerState()
	var msg []string
	switch {
	case stopping && !n.stopping:
		n.stopping = true
		msg = append(msg, "STOPPING=1")
	case ready && !n.ready && !n.stopping:
		n.ready = true
		msg = append(msg, "READY=1")
		if l.m.st.hasApp {
			l.log.Infof("notify: READY=1 to the manager, %s after the app started", l.m.now().Sub(l.m.st.appStarted).Round(time.Millisecond))
		} else {
			l.log.Infof("notify: READY=1 to the manager")
		}
	}
	if status != n.said {
		n.said = status
		msg = append(msg, "STATUS="+status)
	}
	if len(msg) > 0 {
		l.sendManager(strings.Join(msg, "\n"))
	}
}

// watchdogPing sends WATCHDOG=1 while liveness holds: a loop that runs
// (this is the loop) and an app that is live by its checks.
func (l *Loop) watchdogPing() {
	if live, why := l.m.liveness(); !live {
		l.log.Debugf("notify: no WATCHDOG=1 to the manager: %s", why)
		return
	}
	l.sendManager("WATCHDOG=1")
}

func (l *Loop) sendManager(msg string) {
	err := l.note.out.Send(msg)
	if err == nil {
		l.log.Debugf("notify: sent %s", excerpt.Quote(msg))
		return
	}
	l.note.failed++
	lost := strings.ReplaceAll(msg, "\n", " ")
	if l.note.failed == 1 {
		l.log.Warnf("notify: %s lost: %v (later failures are logged at -vv)", excerpt.Quote(lost), err)
		return
	}
	l.log.Debugf("notify: %s lost: %v (%d lost so far)", excerpt.Quote(lost), err, l.note.failed)
}
