// Command tend is a minimal init for containers. It runs as PID 1, starts
// the app, reaps every zombie, forwards signals, runs Kubernetes-style
// lifecycle hooks, and exits with the app's exit code.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tend-init/tend/probe"
)

func main() {
	err := run(context.Background(), os.Args, os.LookupEnv)
	os.Exit(exitCode(err, os.Stderr))
}

// exitStatus carries the code tend exits with once the app has run.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// exitCode turns run's result into a process exit code. Anything that is not
// an app's exit status is a set-up failure: one line on stderr and exit 1,
// as tini does.
func exitCode(err error, stderr io.Writer) int {
	var st exitStatus
	switch {
	case err == nil, errors.Is(err, errHandled):
		return 0
	case errors.As(err, &st):
		return int(st)
	}
	code := 1
	var ex *execError
	if errors.As(err, &ex) {
		code = ex.code
	}
	_, _ = fmt.Fprintf(stderr, "[tend %d] ERROR: %s\n", os.Getpid(), oneLine(err.Error())) // stderr is all we have
	return code
}

// run is the whole of tend: parse, set up, supervise. It never exits the
// process itself, so that every path reaches the same exit-code logic.
func run(ctx context.Context, args []string, env lookupEnv) error {
	cfg, err := parseConfig(args, env, os.Stdout)
	if err != nil {
		return err
	}
	if cfg.Check != "" {
		// A HEALTHCHECK client: no app, no reaping, no PID 1 needed.
		if err := probe.Check(cfg.Check, cfg.CheckTimeout); err != nil {
			return fmt.Errorf("check %s: %v", cfg.Check, err)
		}
		return nil
	}
	log := newLogger(os.Stderr, cfg.Verbosity)
	sup, err := newSupervisor(cfg, log)
	if err != nil {
		return err
	}
	if code := sup.run(ctx); code != 0 {
		return exitStatus(code)
	}
	return nil
}
