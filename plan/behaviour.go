package plan

// Behaviour is what a mode's command line chooses beyond tend's flags:
// named behaviours that the loop and the machine act on, never a mode.
// Default is tend's own mode (tini's behaviour); a mode is a preset that
// fills these, one file in package mode each (mode/dumbinit.go sets
// them as dumb-init 1.2.5 behaves: README, "Migrating from dumb-init").
type Behaviour struct {
	// ForwardCatchable: every catchable standard signal is caught and
	// forwarded (signals.ListenCatchable), the fault signals, TTIN and
	// TTOU included, PIPE unless tend has sockets of its own, and none
	// left ignored for the app, as dumb-init.c (main) blocks and
	// sigwaits on them all; false: tini's set (signals.Listen).
	ForwardCatchable bool
	// ForwardURG: with ForwardCatchable, URG too. Only right when the Go
	// runtime never sends tend a URG of its own (asynchronous preemption
	// off), or tend would pass on its own preemption signals.
	ForwardURG bool
	// ContAfterStop: SIGCONT follows the stop signal, so that a stopped
	// app can act on it at once (systemd does the same).
	ContAfterStop bool
	// KillAtGrace: a stop ends in SIGKILL at the grace period.
	KillAtGrace bool
	// TermGroupOnExit: when the app exits, what is left of the process
	// group it led gets SIGTERM.
	TermGroupOnExit bool
	// SuspendOnJobStop: a received TSTP, TTIN or TTOU, forwarded or
	// dropped, then stops tend itself, so that a shell's
	// waitpid(WUNTRACED) sees it stopped; the CONT that resumes it is
	// forwarded (dumb-init.c, handle_signal: kill(getpid(), SIGSTOP)).
	SuspendOnJobStop bool
	// AppGroup is where the app starts: its own process group (the
	// default), a new session, or tend's own group.
	AppGroup AppGroup
	// ChdirRoot: tend changes to / once the app has started, so that it
	// never holds a mount busy; the app, hooks and exec probes keep the
	// directory tend was started in.
	ChdirRoot bool
	// WarnNotReaper: warn when tend is neither PID 1 nor a child
	// subreaper, so zombie reaping cannot work (tini's warning).
	WarnNotReaper bool
	// Trace: write the peer's debug trace, each line TraceTag and one of
	// dumb-init's -v messages ("Received signal 15."), in order with
	// tend's own lines (trace.go).
	Trace    bool
	TraceTag string
	// ExecFailCode, when not 0, is what tend exits with when the app
	// cannot be started, after one line: ExecFailLine with the program
	// (%[1]s) and glibc's wording of the errno (%[2]s), as dumb-init's
	// "[dumb-init] PROG: No such file or directory" and exit 2. 0: tend's
	// own error line and tini's 126 or 127.
	ExecFailCode int
	ExecFailLine string
}

// AppGroup is the process group, or session, the app starts in.
type AppGroup int

const (
	// GroupOwn: the app leads its own process group, made the
	// terminal's foreground when stdin is tend's controlling terminal
	// (tini).
	GroupOwn AppGroup = iota
	// GroupSession: the app leads a new session, with stdin's terminal
	// as its controlling terminal when no other session holds it; tend
	// gives up its own terminal first (TIOCNOTTY), and ignores the HUP
	// and CONT that brings it once each (package terminal). As dumb-init.c
	// (main: its child calls setsid() and ioctl(0, TIOCSCTTY, 0), and
	// logs "Unable to attach to controlling tty" under -v when that
	// fails; handle_signal: the tty hand-off signals, dumb-init #136).
	GroupSession
	// GroupShared: the app stays in tend's own process group.
	GroupShared
)
