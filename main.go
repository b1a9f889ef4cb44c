// Command tend is a minimal init for containers. It runs as PID 1, starts
// the app, reaps every zombie, forwards signals, runs Kubernetes-style
// lifecycle hooks, and exits with the app's exit code.
//
// Package main only turns flags and variables into a lifecycle.Config,
// answers --check, and exits with the code that the lifecycle returns.
package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	_ "github.com/tend-init/tend/internal/oneproc" // first: see its doc

	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/lifecycle"
	"github.com/tend-init/tend/probe"
)

func main() {
	http1.Version = version
	os.Exit(run(context.Background(), os.Args, os.LookupEnv, os.Stdout, os.Stderr))
}

// run is the whole of tend and returns its exit code. It never exits the
// process itself, so that every path reaches the same exit-code logic: a
// set-up failure is one line on stderr and the error's code (1, or 126/127
// for an app that cannot run, as tini).
func run(ctx context.Context, args []string, env lookupEnv, stdout, stderr io.Writer) int {
	cfg, check, err := parseConfig(args, env, stdout)
	if err == nil && check != nil {
		// A HEALTHCHECK client: no app, no reaping, no PID 1 needed.
		if err = runCheck(check); err != nil {
			err = fmt.Errorf("check %s: %v", check.url, err)
		}
		cfg = nil
	}
	var l *lifecycle.Loop
	if err == nil && cfg != nil {
		l, err = lifecycle.New(*cfg, stderr)
	}
	switch {
	case err != nil:
		format := lifecycle.LogText // a flag error comes before the format is known
		if cfg != nil {
			format = cfg.LogFormat
		}
		lifecycle.NewLogger(stderr, lifecycle.LevelError, format).Errorf("%s", oneLine(err.Error()))
		return lifecycle.ExitCode(err)
	case l == nil: // -h, --version or --check: done
		return 0
	}
	return l.Run(ctx)
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// checkReq is a --check run: a HEALTHCHECK client instead of an init.
type checkReq struct {
	url     string
	timeout time.Duration // defaultCheckTimeout unless given
	ca      string        // --check-ca: verify https against this PEM file
}

// runCheck makes the one GET. https is not verified, as the kubelet's
// probes, unless --check-ca names the CA to verify against.
func runCheck(c *checkReq) error {
	req := http1.Request{URL: c.url}
	if c.ca != "" {
		pem, err := os.ReadFile(c.ca)
		if err != nil {
			return err
		}
		req.CA = x509.NewCertPool()
		if !req.CA.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--check-ca %s holds no PEM certificate", c.ca)
		}
		req.Verify = true
	}
	_, err := probe.CheckWith(req, c.timeout)
	return err
}

const defaultCheckTimeout = time.Second

// parseConfig parses args (args[0] is the program name) and the environment
// into what tend runs: a lifecycle Config, or a --check. It prints help or
// the version to stdout itself and then returns neither.
func parseConfig(args []string, env lookupEnv, stdout io.Writer) (*lifecycle.Config, *checkReq, error) {
	specs := flagSpecs()
	v, err := readValues(args[1:], env, specs)
	switch {
	case err != nil:
		return nil, nil, err
	case v.given["help"] || v.given["h"]:
		return nil, nil, printHelp(specs, stdout)
	case v.given["version"]:
		_, _ = fmt.Fprintf(stdout, "tend %s\n", version) // stdout gone: nothing to report to
		return nil, nil, nil
	}
	if url, ok := v.str("check"); ok {
		if strings.TrimSpace(url) == "" {
			// An unset variable in a HEALTHCHECK line: fail now, rather
			// than start an init that waits for TERM.
			return nil, nil, usagef("--check needs a URL, got an empty value")
		}
		c := &checkReq{url: url, timeout: defaultCheckTimeout}
		c.ca, _ = v.str("check-ca")
		return nil, c, v.duration("check-timeout", &c.timeout)
	}
	cfg, err := buildConfig(v)
	return cfg, nil, err
}

// oneLine escapes line breaks, so that a message which quotes the user's
// input stays one line in the container log.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}
