package mode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/config"
	"github.com/tend-init/tend/internal/getopt"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

// The catatonit mode: tend installed or linked as catatonit, podman's
// init and pause process, reads catatonit's command line and behaves as
// catatonit 0.1.7 (Debian's) and 0.2.x do (openSUSE/catatonit,
// catatonit.c). Under `podman run --init --init-path TEND` podman names
// the file /run/podman-init, so tend's own mode runs there unless
// TEND_MODE=catatonit: both read podman's `-- CMD` alike.

// CatatonitMode reports whether tend runs as catatonit: when installed or
// linked as catatonit (the basename of argv[0]), or when
// TEND_MODE=catatonit. argv[0] is kept: glibc's messages name it.
func CatatonitMode(args []string, env config.LookupEnv) ([]string, bool) {
	if len(args) == 0 {
		return args, false
	}
	if filepath.Base(args[0]) == "catatonit" {
		return args, true
	}
	v, ok := env("TEND_MODE")
	return args, ok && v == "catatonit"
}

var catatonitMode = Mode{Name: "catatonit", Selects: CatatonitMode,
	Parse: func(args []string, env config.LookupEnv, b Build, stdout, stderr io.Writer) (Task, error) {
		cfg, code, err := ParseCatatonit(args, env, b, os.Getpid(), stdout, stderr)
		return Task{Run: cfg, Exit: code}, err
	}}

// catatonitOptions is catatonit's getopt_long table: "ghLPV" and
// --version.
var catatonitOptions = []getopt.Option{
	{Short: 'g'}, {Short: 'h'}, {Short: 'L'}, {Short: 'P'}, {Long: "version", Short: 'V'},
}

// catatonitUsage is catatonit's usage(): it names PROGRAM_NAME, never
// argv[0].
const catatonitUsage = "usage: catatonit [-ghLPV] [--] <progname> [<arguments>...]\n"

// ParseCatatonit is config.Parse for the catatonit mode: catatonit's
// command line read as catatonit.c (main) reads it, its messages and exit
// codes included, over tend's TEND_* variables, which keep every feature
// of tend's own. A nil config and a nil error mean tend is done (-h, -L, -V,
// a usage error), written already; code is then the exit code. pid is
// tend's, which catatonit's error lines carry.
//
// catatonit's getopt_long permutes: an option after the program is still
// catatonit's (`catatonit sh -c x` is "invalid option -- 'c'"), so a
// program with flags needs "--", as podman writes it; POSIXLY_CORRECT
// stops at the program, as glibc does.
func ParseCatatonit(args []string, env config.LookupEnv, b Build, pid int, stdout, stderr io.Writer) (cfg *plan.Config, code int, err error) {
	errorf := func(format string, a ...any) {
		_, _ = fmt.Fprintf(stderr, "ERROR (catatonit:%d): "+format+"\n", append([]any{pid}, a...)...) // stderr gone: the code tells
	}
	if _, ok := env("CATATONIT_LOG"); ok {
		errorf("CATATONIT_LOG is reserved for future use") // main: before getopt
		return nil, 1, nil
	}
	prog := "catatonit"
	if len(args) > 0 {
		prog, args = args[0], args[1:]
	}
	var group, pause, done bool
	var operands []string
	_, posix := env("POSIXLY_CORRECT")
	g := getopt.Reader{Opts: catatonitOptions}
	for len(args) > 0 && !done {
		n := g.Read(args, func(it getopt.Item) bool {
			done = true
			switch {
			case it.Fault != getopt.OK:
				_, _ = io.WriteString(stderr, getopt.Message(prog, it)+catatonitUsage) // stderr gone: the code tells
				code = 1
			case it.Opt.Short == 'h':
				_, _ = fmt.Fprintf(stderr, catatonitHelp, b.Version) // as above
			case it.Opt.Short == 'L':
				_, _ = io.WriteString(stdout, tendLicense) // stdout gone: nothing to tell
			case it.Opt.Short == 'V':
				_, _ = io.WriteString(stdout, DockerInitVersion(b)) // as above
			default:
				group = group || it.Opt.Short == 'g'
				pause = pause || it.Opt.Short == 'P'
				done = false
			}
			return done
		})
		switch {
		case done:
		case n < len(args) && args[n] == "--":
			operands, args = append(operands, args[n+1:]...), nil
		case n < len(args) && posix:
			operands, args = append(operands, args[n:]...), nil
		case n < len(args): // an operand: glibc moves it after the options
			operands, args = append(operands, args[n]), args[n+1:]
		default:
			args = nil
		}
	}
	if done {
		return nil, code, nil
	}
	if len(operands) == 0 && !pause {
		errorf("missing program name")
		_, _ = io.WriteString(stderr, catatonitUsage) // as above
		return nil, 1, nil
	}
	if pause {
		operands = nil // main: with -P no program is spawned
	}
	cfg, err = catatonitConfig(operands, group, pause, env, b, pid)
	return cfg, 0, err
}

// catatonitConfig is tend's configuration for catatonit's command line:
// the TEND_* variables read as config.Parse reads them, catatonit's
// behaviour where they say nothing.
func catatonitConfig(args []string, group, pause bool, env config.LookupEnv, b Build, pid int) (*plan.Config, error) {
	cfg, set, err := config.FromEnv(env)
	if err != nil {
		return nil, err
	}
	cfg.Args, cfg.Pause, cfg.Version = args, pause, b.Version
	cfg.KillGroup = cfg.KillGroup || group
	// main: not PID 1, it sets the child-subreaper bit, or exits 1.
	cfg.Subreaper = true
	// _log: errors only, every level with CATATONIT_DEBUG (any value).
	if !set("verbose") {
		cfg.Verbosity = logger.LevelError
		if _, debug := env("CATATONIT_DEBUG"); debug {
			cfg.Verbosity = logger.LevelDebug
		}
	}
	// main: every signal is read from a signalfd and forwarded but the
	// kernel's (kernel_signals: left at their default, which the kernel
	// drops for PID 1) and the terminal's stops (ignored: "tty has
	// TOSTOP set"). A user's rule for one of them still wins.
	for _, s := range append(signals.Faults(), unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU) {
		if _, ok := cfg.Rewrite[s]; !ok && s != unix.SIGSTKFLT {
			cfg.Rewrite[s] = 0
		}
	}
	graceKill := set("grace-period")
	cfg.Behaviour = plan.Behaviour{
		ForwardCatchable: true,
		ForwardURG:       signals.AsyncPreemptOff(env, b.Godebug),
		// It forwards what it receives, never kills: TEND_GRACE_PERIOD
		// asks for tend's SIGKILL.
		ContAfterStop: false,
		KillAtGrace:   graceKill,
		// spawn_pid1 -> make_foreground: setpgid(0, 0) and tcsetpgrp.
		AppGroup: plan.GroupOwn,
		// main: chdir("/") after the spawn, in pause mode too (podman
		// runs `catatonit -P` in a directory it later unmounts).
		ChdirRoot: true,
		// It is PID 1 or a subreaper, and says nothing either way.
		WarnNotReaper: false,
		// spawn_pid1: the child's bail("failed to exec pid1: %m"), then
		// catatonit exits with the child's 1.
		ExecFailCode: 1,
		ExecFailLine: fmt.Sprintf("ERROR (catatonit:%d): failed to exec pid1: %%[2]s\n", pid),
	}
	return cfg, nil
}

// catatonitHelp is catatonit's help(), but for its last lines: what it
// says of its sources is tend's here.
const catatonitHelp = catatonitUsage + "\n" +
	"options:\n" +
	"  -g              Forward signals to pid1's process group.\n" +
	"  -h              Print this help page.\n" +
	"  -L              Print license information.\n" +
	"  -P              Run in pause mode (no program is run and quit on SIGINT).\n" +
	"  -V, --version   Print version information.\n" +
	"\n" +
	"This is tend %s in catatonit mode; the TEND_* variables of `tend -h` configure the rest.\n" +
	"The source code can be found at <https://github.com/tend-init/tend>.\n"

// tendLicense is what -L prints: tend's licence, not catatonit's.
const tendLicense = "tend: a minimal init for containers\n" +
	"Licensed under the Apache License, Version 2.0 <http://www.apache.org/licenses/LICENSE-2.0>.\n"
