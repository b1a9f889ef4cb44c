package config

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tend-init/tend/plan"
)

type flagKind int

const (
	kindBool  flagKind = iota
	kindCount          // -v, -vv, -vvv
	kindValue
	kindList // repeatable
)

// flagSpec describes one flag once, for cli, for getopt and for the
// environment fallback.
type flagSpec struct {
	long  string
	short string
	kind  flagKind
	env   []string // TEND_* first, then tini's name if any
	usage string
	// def is the default shown in -h, read from plan.Default so
	// that it is written nowhere else.
	def string
	// splitEnv splits a list variable into values. Nil means one value
	// per variable.
	splitEnv func(string) []string
	// presence makes a variable true merely by being set, even empty, as
	// tini does for TINI_SUBREAPER and TINI_KILL_PROCESS_GROUP.
	presence map[string]bool
}

// flagSpecs is tend's flag table: -h, tend(1), the README's flag
// reference and the parse all read it, in this order.
func flagSpecs() []flagSpec {
	d := plan.Default()
	return append(append(tiniSpecs(), []flagSpec{
		{long: "log-format", kind: kindValue, env: []string{"TEND_LOG_FORMAT"},
			usage: "write tend's log lines as `FORMAT`: text (tini's) or json (one object per line: time, level, msg, pid, fields)", def: "text"},
		{long: "rewrite-signal", short: "r", kind: kindList, env: []string{"TEND_REWRITE_SIGNAL"}, splitEnv: splitFields,
			usage: "forward signal FROM as TO (`FROM:TO`, names or numbers; TO=0 drops); repeatable"},
		{long: "pre-start", kind: kindList, env: []string{"TEND_PRE_START"}, splitEnv: splitActions,
			usage: "run `ACTION` before the app starts, as tend's own user (not --user's); repeatable; if one fails the app never starts and tend exits 69"},
		{long: "post-start", kind: kindList, env: []string{"TEND_POST_START"}, splitEnv: splitActions,
			usage: "run `ACTION` once the app has started: a shell string, a JSON exec array, sleep:DUR, http(s)://URL or a JSON LifecycleHandler; repeatable; failure stops the app"},
		{long: "pre-stop", kind: kindList, env: []string{"TEND_PRE_STOP"}, splitEnv: splitActions,
			usage: "run `ACTION` when a stop begins, before the stop signal reaches the app; repeatable"},
		{long: "post-stop", kind: kindList, env: []string{"TEND_POST_STOP"}, splitEnv: splitActions,
			usage: "run `ACTION` after the app has exited and the tree has drained; repeatable"},
		{long: "reload-on", kind: kindList, env: []string{"TEND_RELOAD_ON"}, splitEnv: splitLines,
			usage: "reload the app when the bytes of `PATH` change: a file, or a directory (a ConfigMap volume's ..data swap included); repeatable; the variable takes one path a line"},
		{long: "reload-signal", kind: kindValue, env: []string{"TEND_RELOAD_SIGNAL"},
			usage: "`SIG` a --reload-on change sends the app", def: "SIGHUP"},
		{long: "reload", kind: kindList, env: []string{"TEND_RELOAD"}, splitEnv: splitActions,
			usage: "run `ACTION` on a --reload-on change instead of sending the reload signal, bounded by --hook-timeout; repeatable"},
		{long: "stop-exit-code", kind: kindValue, env: []string{"TEND_STOP_EXIT_CODE"},
			usage: "exit `N` (0..255) after a stop asked for by TERM, INT or the stop signal, when the app died of the stop signal or exited by its own handler; crashes and stops tend began keep their codes"},
		{long: "user", kind: kindValue, env: []string{"TEND_USER"},
			usage: "run the app, post-start, pre-stop and exec probes as `USER[:GROUP]`, names from the container's /etc/passwd and /etc/group or numbers, with the user's groups and HOME, as gosu; post-stop runs as tend"},
		{long: "stop-signal", kind: kindValue, env: []string{"TEND_STOP_SIGNAL"},
			usage: "`SIG` that a stop sends the app; received, it begins a stop like TERM and INT (Docker's STOPSIGNAL)", def: "SIGTERM"},
		{long: "min-shutdown-window", kind: kindValue, env: []string{"TEND_MIN_SHUTDOWN_WINDOW"},
			usage: "least time between the stop signal and SIGKILL, even when pre-stop used up the grace period, `DUR`", def: d.MinShutdownWindow.String()},
		{long: "termination-message-path", kind: kindValue, env: []string{"TEND_TERMINATION_MESSAGE_PATH"},
			usage: "write why tend ended the app to `FILE` when it is empty; \"\" turns it off", def: defaultTerminationLog + " if writable"},
		{long: "hook-timeout", kind: kindValue, env: []string{"TEND_HOOK_TIMEOUT"},
			usage: "bound each hook run by `DUR`", def: d.HookTimeout.String()},
		{long: "grace-period", kind: kindValue, env: []string{"TEND_GRACE_PERIOD"},
			usage: "time from the start of a stop to SIGKILL, `DUR`; unset and without post-stop, a stop the runtime asks for gets no SIGKILL from tend and one tend begins " + plan.KubeletGracePeriod.String(),
			def:   d.GracePeriod.String() + " with a post-stop hook"},
		{long: "drain-timeout", kind: kindValue, env: []string{"TEND_DRAIN_TIMEOUT"},
			usage: "time the rest of the tree gets after the app exits, `DUR`", def: d.DrainTimeout.String()},
		{long: "wait-for", kind: kindList, env: []string{"TEND_WAIT_FOR"}, splitEnv: splitLines,
			usage: "before pre-start and the app, wait until `[NAME=]SPEC` (a probe spec: tcp://, http(s)://, grpc://, a command, Probe JSON) passes once; all at once, each retried with a backoff up to 500ms; repeatable"},
		{long: "wait-timeout", kind: kindValue, env: []string{"TEND_WAIT_TIMEOUT"},
			usage: "bound the whole --wait-for by `DUR`; then no app starts and tend exits 69 (0: no bound)", def: d.WaitTimeout.String()},
		{long: "pause", kind: kindBool, env: []string{"TEND_PAUSE"},
			usage: "run no program: reap and answer the health endpoint until TERM or INT (a pause container); implied by probes with no program"},
		{long: "health-addr", kind: kindValue, env: []string{"TEND_HEALTH_ADDR"},
			usage: "serve /livez, /readyz and /metrics on `HOST:PORT` (bind 127.0.0.1 or the pod IP)"},
		{long: "startup-probe", kind: kindList, env: []string{"TEND_STARTUP_PROBE"}, splitEnv: splitLines,
			usage: "startup probe `[NAME=]SPEC`; liveness and readiness wait until it passes once; repeatable"},
		{long: "ready-probe", kind: kindList, env: []string{"TEND_READY_PROBE"}, splitEnv: splitLines,
			usage: "readiness probe `[NAME=]SPEC`: http(s)://HOST:PORT/PATH, tcp://HOST:PORT, a command, or a Kubernetes Probe as JSON; repeatable"},
		{long: "live-probe", kind: kindList, env: []string{"TEND_LIVE_PROBE"}, splitEnv: splitLines,
			usage: "liveness probe `[NAME=]SPEC`; when it fails, tend stops the app and exits 75; repeatable"},
		{long: "probe-period", kind: kindValue, env: []string{"TEND_PROBE_PERIOD"}, usage: "probe every `DUR`", def: d.Probe.Period.String()},
		{long: "probe-timeout", kind: kindValue, env: []string{"TEND_PROBE_TIMEOUT"}, usage: "bound each probe by `DUR`", def: d.Probe.Timeout.String()},
		{long: "probe-initial-delay", kind: kindValue, env: []string{"TEND_PROBE_INITIAL_DELAY"}, usage: "wait `DUR` before the first probe", def: d.Probe.InitialDelay.String()},
		{long: "probe-failure-threshold", kind: kindValue, env: []string{"TEND_PROBE_FAILURE_THRESHOLD"}, usage: "`N` failures in a row fail a probe", def: fmt.Sprint(d.Probe.FailureThreshold)},
		{long: "probe-success-threshold", kind: kindValue, env: []string{"TEND_PROBE_SUCCESS_THRESHOLD"}, usage: "`N` successes in a row pass a probe", def: fmt.Sprint(d.Probe.SuccessThreshold)},
		{long: "notify", kind: kindBool, env: []string{"TEND_NOTIFY"},
			usage: "give the app a NOTIFY_SOCKET of tend's own (sd_notify): its READY=1 is a readiness condition beside the readiness probes, RELOADING=1 withdraws it until the next READY=1, STATUS= shows in /readyz?verbose"},
		{long: "notify-watchdog", kind: kindValue, env: []string{"TEND_NOTIFY_WATCHDOG"},
			usage: "with --notify: once ready, the app must send WATCHDOG=1 at least every `DUR`, or tend stops it and exits 75, as for a failed liveness probe"},
		{long: "notify-pass", kind: kindBool, env: []string{"TEND_NOTIFY_PASS"},
			usage: "let the app inherit tend's NOTIFY_SOCKET and WATCHDOG_* and speak to podman or systemd itself, as under tini; tend then sends them nothing (default: tend sends READY=1 once the app is ready, and the app sees neither)"},
		{long: "check", kind: kindValue, usage: "HEALTHCHECK client: GET `URL` (http or https) once, exit 0 on 200-399, else 1; grpc(s)://HOST:PORT[/SERVICE]: one Health/Check, exit 0 on SERVING, else 1"},
		{long: "check-ca", kind: kindValue, usage: "verify --check's https or grpcs server against the CA certificates in `FILE` (unverified without it, as the kubelet)"},
		{long: "check-timeout", kind: kindValue, usage: "bound --check by `DUR`", def: defaultCheckTimeout.String()},
		{long: "version", kind: kindBool, usage: "print the version and exit"},
	}...), probeKindSpecs()...)
}

// tiniSpecs are tini's flags, first in the table: its letters, and its
// TINI_* variables beside tend's (tini.c, parse_args and parse_env).
func tiniSpecs() []flagSpec {
	return []flagSpec{
		{long: "subreaper", short: "s", kind: kindBool, env: []string{"TEND_SUBREAPER", "TINI_SUBREAPER"},
			presence: map[string]bool{"TINI_SUBREAPER": true},
			usage:    "register as a child subreaper, for when tend is not PID 1"},
		{long: "remap-exit", short: "e", kind: kindList, env: []string{"TEND_REMAP_EXIT"}, splitEnv: splitFields,
			usage: "remap exit code `N` (0..255, after 128+signal) to 0; repeatable"},
		{long: "kill-group", short: "g", kind: kindBool, env: []string{"TEND_KILL_GROUP", "TINI_KILL_PROCESS_GROUP"},
			presence: map[string]bool{"TINI_KILL_PROCESS_GROUP": true},
			usage:    "send forwarded signals to the app's process group"},
		{long: "pdeathsig", short: "p", kind: kindValue, env: []string{"TEND_PDEATHSIG"},
			usage: "set tend's own parent-death signal to `SIGNAME`"},
		{long: "warn-on-reap", short: "w", kind: kindBool, env: []string{"TEND_WARN_ON_REAP"},
			usage: "log each reaped process other than the app"},
		{long: "verbose", short: "v", kind: kindCount, env: []string{"TEND_VERBOSITY", "TINI_VERBOSITY"},
			usage: "more logging: -v info, -vv debug (default: warnings); variables take a number: 0 errors, 1 warnings, 2 info, 3 debug"},
	}
}

// probeSettings are the per-probe settings; each kind has its own flags,
// which default to the shared --probe-* ones.
var probeSettings = []string{"period", "timeout", "initial-delay", "failure-threshold", "success-threshold"}

// probeKindSpecs are --KIND-probe-SETTING for startup, ready and live.
func probeKindSpecs() []flagSpec {
	var out []flagSpec
	for _, kind := range []string{"startup", "ready", "live"} {
		for _, set := range probeSettings {
			long := kind + "-probe-" + set
			unit := "DUR" // the placeholder -h shows, as the shared flags' own
			if strings.HasSuffix(set, "threshold") {
				unit = "N"
			}
			out = append(out, flagSpec{long: long, kind: kindValue,
				env:   []string{"TEND_" + strings.ToUpper(strings.ReplaceAll(kind+"_probe_"+set, "-", "_"))},
				usage: "the " + kind + " probes' " + set + ", `" + unit + "` (default: --probe-" + set + ")"})
		}
	}
	return out
}

func envHelp(s flagSpec) string {
	if len(s.env) == 0 {
		return s.usage
	}
	return fmt.Sprintf("%s (env %s)", s.usage, strings.Join(s.env, ", "))
}

// cliFlag is s as one of cli's flag types.
func cliFlag(s flagSpec) cli.Flag {
	var aliases []string
	if s.short != "" {
		aliases = []string{s.short}
	}
	switch s.kind {
	case kindBool:
		return &cli.BoolFlag{Name: s.long, Aliases: aliases, Usage: envHelp(s), DisableDefaultText: true}
	case kindCount:
		// cli's Apply subtracts one count per alias, expecting its own
		// parser to double-count them; ours does not, so start the
		// count at the number of aliases.
		n := len(aliases)
		return &cli.BoolFlag{Name: s.long, Aliases: aliases, Usage: envHelp(s), Count: &n, DisableDefaultText: true}
	case kindList:
		// Not cli.StringSliceFlag: outside cli.App it splits values on
		// commas, and hook commands contain commas.
		return &cli.GenericFlag{Name: s.long, Aliases: aliases, Usage: envHelp(s), Value: &listValue{}}
	}
	return &cli.StringFlag{Name: s.long, Aliases: aliases, Usage: envHelp(s), DefaultText: s.def}
}

// printHelp renders usage from cli's own flag types, each flag through its
// String (cli's FlagStringer: names, placeholder, usage, default), without
// cli.App: App's help goes through text/template and reflection, which cost
// about 1.1 MiB of binary and 870 KiB of resident file pages at every start.
func printHelp(specs []flagSpec, stdout io.Writer) error {
	var b strings.Builder
	b.WriteString("NAME:\n   tend - a minimal init for containers: reaps zombies, forwards signals, runs lifecycle hooks\n\n")
	b.WriteString("USAGE:\n   tend [flags] [--] PROGRAM [ARGS...]\n   tend [flags]    (pause mode: reap and wait for TERM)\n\nGLOBAL OPTIONS:\n")
	for _, s := range specs {
		name, usage, _ := strings.Cut(cliFlag(s).String(), "\t")
		fmt.Fprintf(&b, "   %-40s %s\n", name, usage)
	}
	b.WriteString("   --help, -h                               show help\n")
	_, err := io.WriteString(stdout, b.String())
	return err
}
