package mode

import (
	"fmt"
	"io"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/config"
	"github.com/tend-init/tend/internal/getopt"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

// DumbInitVersion is the dumb-init release whose command line and
// behaviour the dumb-init mode reproduces; -V prints it as dumb-init
// does, so a script that checks `dumb-init -V` keeps working.
const DumbInitVersion = "1.2.5"

// dumbInitMaxSig is dumb-init's MAXSIG: -r takes signals 1 to 31 only.
const dumbInitMaxSig = 31

// DumbInitMode reports whether tend runs as dumb-init, and with which
// command line: when installed or linked as dumb-init (the basename of
// argv[0]), when --dumb-init is the first argument (dropped here), or
// when TEND_MODE=dumb-init. argv[0] is kept, since dumb-init's messages
// name it.
func DumbInitMode(args []string, env config.LookupEnv) ([]string, bool) {
	if len(args) == 0 {
		return args, false
	}
	if filepath.Base(args[0]) == "dumb-init" {
		return args, true
	}
	if len(args) > 1 && args[1] == "--dumb-init" {
		return append([]string{args[0]}, args[2:]...), true
	}
	if v, ok := env("TEND_MODE"); ok && v == "dumb-init" {
		return args, true
	}
	return args, false
}

// dumbInitMode is tend installed or invoked as dumb-init: its command
// line, its behaviour (README, "Migrating from dumb-init").
var dumbInitMode = Mode{Name: "dumb-init", Selects: DumbInitMode,
	Parse: func(args []string, env config.LookupEnv, b Build, _, stderr io.Writer) (Task, error) {
		cfg, code, err := ParseDumbInit(args, env, b.Godebug, stderr)
		if cfg != nil {
			cfg.Version = b.Version // tend's, for the User-Agent and /metrics
		}
		return Task{Run: cfg, Exit: code}, err
	}}

// dumbInitOptions is dumb-init's getopt_long table ("+hvVcr:").
var dumbInitOptions = []getopt.Option{
	{Long: "help", Short: 'h', Arg: false},
	{Long: "single-child", Short: 'c', Arg: false},
	{Long: "rewrite", Short: 'r', Arg: true},
	{Long: "verbose", Short: 'v', Arg: false},
	{Long: "version", Short: 'V', Arg: false},
}

// dumbInitArgs is dumb-init's own command line, read.
type dumbInitArgs struct {
	args          []string
	setsid, debug bool
	// rewrite maps a received signal 1..31 to the one forwarded; 0
	// drops it. A signal without a rule is forwarded as it is.
	rewrite signals.Rewrite
}

// debugf writes one of dumb-init's parse-time debug lines at once: they
// come before anything the loop logs.
func (d *dumbInitArgs) debugf(w io.Writer, line string) {
	if d.debug {
		_, _ = io.WriteString(w, "[dumb-init] "+line) // stderr gone: nothing to tell
	}
}

// ParseDumbInit is config.Parse for the dumb-init mode: dumb-init's
// command line and variables, read exactly as dumb-init 1.2.5 does
// (dumb-init.c, parse_command, messages included), over tend's TEND_*
// (and TINI_*) variables, which keep every feature of tend's own. A nil config and a
// nil error mean tend is done: -h, -V, a usage error or a bad -r, written
// to stderr; code is then the exit code. An error is a TEND_* variable's.
//
// Where the dumb-init mode's defaults differ from tend's, a variable that
// names the setting still wins: verbosity errors only (dumb-init prints
// nothing else) unless TEND_VERBOSITY or TINI_VERBOSITY; no SIGKILL at
// the grace period unless TEND_GRACE_PERIOD; the app's process group is
// signalled in setsid mode.
//
// buildGodebug is the GODEBUG defaults tend was built with (package
// main's godebug).
func ParseDumbInit(args []string, env config.LookupEnv, buildGodebug string, stderr io.Writer) (cfg *plan.Config, code int, err error) {
	prog := "dumb-init"
	if len(args) > 0 {
		prog = args[0]
	}
	d := dumbInitArgs{setsid: true, rewrite: signals.Rewrite{}}
	opt := func(c byte, val string) (done bool) {
		switch c {
		case 'h':
			fmt.Fprintf(stderr, dumbInitHelp, DumbInitVersion, prog)
			return true
		case 'V':
			fmt.Fprintf(stderr, "dumb-init v%s\n", DumbInitVersion)
			return true
		case 'v':
			d.debug = true
		case 'c':
			d.setsid = false
		case 'r':
			from, to, ok := parseDumbRewrite(val)
			if !ok {
				fmt.Fprintf(stderr, "Usage: -r option takes <signum>:<signum>, where <signum> is between 1 and %d.\n"+
					"This option can be specified multiple times.\n"+
					"Use --help for full usage.\n", dumbInitMaxSig)
				code = 1
				return true
			}
			d.rewrite[unix.Signal(from)] = unix.Signal(to)
		}
		return false
	}
	i, done := dumbGetopt(args, prog, stderr, opt)
	if done {
		if code == 0 && i < 0 {
			code = 1 // an unknown option or a missing argument
		}
		return nil, code, nil
	}
	if i >= len(args) {
		fmt.Fprintf(stderr, "Usage: %s [option] program [args]\nTry %s --help for full usage.\n", prog, prog)
		return nil, 1, nil
	}
	d.args = args[i:]
	if v, ok := env("DUMB_INIT_DEBUG"); ok && v == "1" {
		d.debug = true
		d.debugf(stderr, "Running in debug mode.\n")
	}
	if v, ok := env("DUMB_INIT_SETSID"); ok && v == "0" {
		d.setsid = false
		d.debugf(stderr, "Not running in setsid mode.\n")
	}
	if d.setsid {
		// dumb-init's default: job-control signals stop the whole group
		// (set_rewrite_to_sigstop_if_not_defined).
		for _, s := range []unix.Signal{unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU} {
			if _, ok := d.rewrite[s]; !ok {
				d.rewrite[s] = unix.SIGSTOP
			}
		}
	}
	cfg, err = d.config(env, buildGodebug)
	return cfg, 0, err
}

// config is tend's configuration for dumb-init's command line d: the
// TEND_* variables read as config.Parse reads them, with d over them.
func (d *dumbInitArgs) config(env config.LookupEnv, buildGodebug string) (*plan.Config, error) {
	cfg, set, err := config.FromEnv(env)
	if err != nil {
		return nil, err
	}
	cfg.Args = d.args
	cfg.Behaviour = d.behaviour(set, env, buildGodebug)
	cfg.KillGroup = cfg.KillGroup || d.setsid
	if !set("verbose") {
		cfg.Verbosity = logger.LevelError
	}
	for from, to := range d.rewrite {
		if cfg.Rewrite == nil {
			cfg.Rewrite = signals.Rewrite{}
		}
		cfg.Rewrite[from] = to
	}
	return cfg, nil
}

// behaviour is how dumb-init 1.2.5 behaves (dumb-init.c), for
// lifecycle's loop. A setting is the user's when its variable is set, as
// config reads it; dumb-init's default holds otherwise.
func (d *dumbInitArgs) behaviour(set func(string) bool, env config.LookupEnv, buildGodebug string) plan.Behaviour {
	// dumb-init never kills; TEND_GRACE_PERIOD asks for tend's SIGKILL.
	graceKill := set("grace-period")
	group := plan.GroupShared // -c: the app stays in dumb-init's group
	if d.setsid {
		group = plan.GroupSession
	}
	return plan.Behaviour{
		// main: it blocks and sigwaits on every signal 1..31.
		ForwardCatchable: true,
		ForwardURG:       signals.AsyncPreemptOff(env, buildGodebug),
		// handle_signal: what it receives, no more.
		ContAfterStop: false,
		KillAtGrace:   graceKill,
		// handle_signal, SIGCHLD: TERM to the group, then exit.
		TermGroupOnExit: d.setsid,
		// handle_signal: SIGTSTP, SIGTTIN and SIGTTOU, then kill(getpid(), SIGSTOP).
		SuspendOnJobStop: true,
		AppGroup:         group,
		// main: chdir("/") once the child runs.
		ChdirRoot: true,
		// Silent as dumb-init: its users expect no warning.
		WarnNotReaper: false,
		Trace:         d.debug,
		TraceTag:      "[dumb-init] ",
		// main, the child: "[dumb-init] %s: %s\n" and exit(2).
		ExecFailCode: 2,
		ExecFailLine: "[dumb-init] %[1]s: %[2]s\n",
	}
}

// dumbInitHelp is dumb-init's print_help, word for word: scripts and its
// test suite compare it.
const dumbInitHelp = "dumb-init v%s\n" +
	"Usage: %s [option] command [[arg] ...]\n" +
	"\n" +
	"dumb-init is a simple process supervisor that forwards signals to children.\n" +
	"It is designed to run as PID1 in minimal container environments.\n" +
	"\n" +
	"Optional arguments:\n" +
	"   -c, --single-child   Run in single-child mode.\n" +
	"                        In this mode, signals are only proxied to the\n" +
	"                        direct child and not any of its descendants.\n" +
	"   -r, --rewrite s:r    Rewrite received signal s to new signal r before proxying.\n" +
	"                        To ignore (not proxy) a signal, rewrite it to 0.\n" +
	"                        This option can be specified multiple times.\n" +
	"   -v, --verbose        Print debugging information to stderr.\n" +
	"   -h, --help           Print this help message and exit.\n" +
	"   -V, --version        Print the current version and exit.\n" +
	"\n" +
	"Full help is available online at https://github.com/Yelp/dumb-init\n"
