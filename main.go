// Command tend is a minimal init for containers. It runs as PID 1, starts
// the app, reaps every zombie, forwards signals, runs Kubernetes-style
// lifecycle hooks, and exits with the app's exit code.
//
// Package main is the table of contents: mode picks the mode and parses
// its command line into a task, then either --check makes its one
// request, or lifecycle runs the app, or tend exits at once; main exits
// with the code that comes back.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tend-init/tend/activation"
	"github.com/tend-init/tend/config"
	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/excerpt"
	_ "github.com/tend-init/tend/internal/oneproc" // GOMAXPROCS=1 before other inits: see its doc
	"github.com/tend-init/tend/lifecycle"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/mode"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/reaper"
	"github.com/tend-init/tend/signals"
)

func main() {
	// tend re-executed to start a socket-activated app: execs it and
	// never returns (package activation).
	activation.Shim(os.Args)
	os.Exit(run(context.Background(), os.Args, os.LookupEnv, os.Stdout, os.Stderr))
}

// run is the whole of tend and returns its exit code: the mode args and
// env select parses them into one task, to run the app, make one check,
// or exit at once. It never exits the process itself, so that every path
// reaches the same exit-code logic: a set-up failure is one line on stderr
// and the error's code (1, or 126/127 for an app that cannot run, as
// tini).
func run(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) int {
	// A usage error written to a closed stderr must cost a line, not the
	// exit code: unguarded, the Go runtime dies of the EPIPE's SIGPIPE,
	// or, as PID 1 (where the kernel drops it), exits 2.
	signals.GuardPipe()
	m, args := mode.Of(args, env)
	task, err := m.Parse(args, env, mode.Build{Version: version, Godebug: godebug, Commit: commit}, stdout, stderr)
	switch {
	case err != nil:
		// A flag error comes before the format is known.
		return fail(stderr, logger.Text, err)
	case task.Healthcheck != nil:
		// A HEALTHCHECK client: no app, no reaping, no PID 1 needed.
		if err := runCheck(task.Healthcheck); err != nil {
			return fail(stderr, logger.Text, fmt.Errorf("check %s: %v", task.Healthcheck.URL, err))
		}
		return 0
	case task.Run != nil:
		return runApp(ctx, *task.Run, stderr)
	}
	return task.Exit // -h, a version or a usage message: said already
}

// runApp sets up the loop and runs it to its exit code.
func runApp(ctx context.Context, cfg plan.Config, stderr io.Writer) int {
	l, err := lifecycle.New(cfg, stderr)
	if err == nil {
		return l.Run(ctx)
	}
	if cfg.ExecFailCode != 0 {
		// The mode's own line and code for a program that cannot run.
		if line, ok := reaper.ExecFailure(err, cfg.ExecFailLine); ok {
			_, _ = io.WriteString(stderr, line) // stderr gone: the code still tells
			return cfg.ExecFailCode
		}
	}
	return fail(stderr, cfg.LogFormat, err)
}

// fail writes err as tend's one error line and returns its exit code.
func fail(stderr io.Writer, format logger.Format, err error) int {
	logger.New(stderr, logger.LevelError, format).Errorf("%s", excerpt.Escape(err.Error()))
	return plan.ExitCode(err)
}

// godebug is what the build gave the runtime as its GODEBUG defaults
// (-X runtime.godebugDefault=...), repeated by the Makefile with -X
// main.godebug=..., since -trimpath keeps -ldflags out of the build info.
var godebug = ""

// runCheck makes the one GET, or for grpc(s):// the one Health/Check call.
// https and grpcs are not verified, as the kubelet's probes, unless
// --check-ca names the CA to verify against (config.Healthcheck.TLS).
func runCheck(c *config.Healthcheck) error {
	t, err := c.TLS()
	if err != nil {
		return err
	}
	if c.GRPC != nil {
		g := *c.GRPC
		g.TLS = &t
		return g.Attempt(context.Background(), probe.Deps{}, c.Timeout)
	}
	req := http1.Request{URL: c.URL, UserAgent: probe.UserAgent(version), Verify: t.Verify, CA: t.CA, Cert: t.Cert}
	_, err = probe.Get(req, c.Timeout)
	return err
}
