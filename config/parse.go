// Package config turns tend's command line and its TEND_*/TINI_* variables
// into what tend runs: a plan.Config, or a --check. It holds the flag
// table (flags.go), which is the one source of -h, of tend(1)
// (manpage_test.go) and of the README's flag reference (readme_test.go);
// reading a flag, through package getopt, or else its variables
// (values.go); and validation into plan.Config (config.go). The other
// inits' command lines are package mode's; FromEnv is their way in.
//
// It parses and validates only: it starts nothing, and every rejection is
// one line that exits 1 (plan.ExitCode).
package config

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

// FromEnv is tend's configuration from its TEND_* (and TINI_*) variables
// alone, as Parse reads them with no flags: what another init's command
// line (package mode) starts from. set reports whether a variable gives
// the flag named long a value, so that the mode's own default for that
// setting gives way to it.
func FromEnv(env LookupEnv) (cfg *plan.Config, set func(long string) bool, err error) {
	v, err := readValues(nil, env, flagSpecs())
	if err == nil {
		cfg, err = buildConfig(v)
	}
	if err != nil {
		return nil, nil, err
	}
	return cfg, func(long string) bool { _, ok := v.str(long); return ok }, nil
}

// LookupEnv is os.LookupEnv, passed in so that tests control the
// environment without mutating the process's.
type LookupEnv func(string) (string, bool)

// Healthcheck is a --check run: a HEALTHCHECK client instead of an init.
type Healthcheck struct {
	URL     string        // as given: http://, https://, grpc:// or grpcs://
	GRPC    *probe.GRPC   // set for grpc(s)://HOST:PORT[/SERVICE]: one Health/Check call
	Timeout time.Duration // defaultCheckTimeout unless given
	CA      string        // --check-ca: verify https and grpcs against this PEM file
}

const defaultCheckTimeout = time.Second

// Parse parses args (args[0] is the program name) and the environment
// into what tend runs: a plan.Config, or a --check. It prints help or
// the version (tend's, given by package main's build) to stdout itself
// and then returns neither.
func Parse(args []string, env LookupEnv, version string, stdout io.Writer) (*plan.Config, *Healthcheck, error) {
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
		c := &Healthcheck{URL: url, Timeout: defaultCheckTimeout}
		c.CA, _ = v.str("check-ca")
		if strings.HasPrefix(url, "grpc://") || strings.HasPrefix(url, "grpcs://") {
			// Read now, as a probe's spec is: a typo in a HEALTHCHECK line
			// is a usage error, not an unhealthy container.
			g, err := probe.ParseSpec(url)
			if err != nil {
				return nil, nil, usagef("invalid --check value: %v", err)
			}
			if c.CA != "" && strings.HasPrefix(url, "grpc://") {
				// As the kubelet's grpc probe: plaintext.
				return nil, nil, usagef("--check-ca applies to https:// and grpcs://, not grpc:// (plaintext, as the kubelet's grpc probe)")
			}
			gc := g.(probe.GRPC)
			c.GRPC = &gc
		}
		return nil, c, v.duration("check-timeout", &c.Timeout)
	}
	cfg, err := buildConfig(v)
	if err == nil {
		// tend's own command line only: another mode's decides pause
		// mode its own way (catatonit's -P).
		err = pauseConfig(cfg, v)
	}
	if err != nil {
		return nil, nil, err
	}
	cfg.Version = version
	return cfg, nil, nil
}
