// Command tend is a minimal init for containers. It runs as PID 1, starts
// the app, reaps every zombie, forwards signals, runs Kubernetes-style
// lifecycle hooks, and exits with the app's exit code.
//
// Package main is the table of contents: config parses the flags and
// variables, then either --check makes its one request or lifecycle runs
// the app, and main exits with the code that comes back.
package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"os"

	"github.com/tend-init/tend/activation"
	"github.com/tend-init/tend/config"
	"github.com/tend-init/tend/http1"
	_ "github.com/tend-init/tend/internal/oneproc" // first: see its doc
	"github.com/tend-init/tend/lifecycle"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

func main() {
	// tend re-executed to start a socket-activated app: execs it and
	// never returns (package activation).
	activation.Shim(os.Args)
	http1.Version = version
	os.Exit(run(context.Background(), os.Args, os.LookupEnv, os.Stdout, os.Stderr))
}

// run is the whole of tend and returns its exit code. It never exits the
// process itself, so that every path reaches the same exit-code logic: a
// set-up failure is one line on stderr and the error's code (1, or 126/127
// for an app that cannot run, as tini).
func run(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) int {
	var (
		cfg   *plan.Config
		check *config.Check
		err   error
	)
	if dargs, ok := config.DumbInitMode(args, env); ok {
		// Installed or invoked as dumb-init: its command line, its
		// behaviour (README, "Migrating from dumb-init").
		var code int
		cfg, code, err = config.ParseDumbInit(dargs, env, godebug, stderr)
		if cfg == nil && err == nil {
			return code // -h, -V or a usage error, said on stderr
		}
	} else {
		cfg, check, err = config.Parse(args, env, version, stdout)
	}
	if err == nil && check != nil {
		// A HEALTHCHECK client: no app, no reaping, no PID 1 needed.
		if err = runCheck(check); err != nil {
			err = fmt.Errorf("check %s: %v", check.URL, err)
		}
		cfg = nil
	}
	var l *lifecycle.Loop
	if err == nil && cfg != nil {
		l, err = lifecycle.New(*cfg, stderr)
	}
	switch {
	case err != nil && cfg != nil && cfg.ExecFailCode != 0:
		// The mode's own line and code for a program that cannot run.
		if line, ok := lifecycle.ExecFailure(err, cfg.ExecFailLine); ok {
			_, _ = io.WriteString(stderr, line) // stderr gone: the code still tells
			return cfg.ExecFailCode
		}
		fallthrough
	case err != nil:
		format := plan.LogText // a flag error comes before the format is known
		if cfg != nil {
			format = cfg.LogFormat
		}
		lifecycle.NewLogger(stderr, plan.LevelError, format).Errorf("%s", config.OneLine(err.Error()))
		return plan.ExitCode(err)
	case l == nil: // -h, --version or --check: done
		return 0
	}
	return l.Run(ctx)
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// godebug is what the build gave the runtime as its GODEBUG defaults
// (-X runtime.godebugDefault=...), repeated by the Makefile with -X
// main.godebug=..., since -trimpath keeps -ldflags out of the build info.
var godebug = ""

// runCheck makes the one GET, or for grpc:// the one Health/Check call.
// https is not verified, as the kubelet's probes, unless --check-ca names
// the CA to verify against.
func runCheck(c *config.Check) error {
	if c.GRPC != nil {
		return c.GRPC.Check(context.Background(), probe.Exec{}, c.Timeout)
	}
	req := http1.Request{URL: c.URL}
	if c.CA != "" {
		pem, err := os.ReadFile(c.CA)
		if err != nil {
			return err
		}
		req.CA = x509.NewCertPool()
		if !req.CA.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--check-ca %s holds no PEM certificate", c.CA)
		}
		req.Verify = true
	}
	_, err := probe.CheckWith(req, c.Timeout)
	return err
}
