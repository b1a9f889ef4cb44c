// Package mode holds the command lines of the inits tend stands in for,
// chosen by argv[0] or TEND_MODE: dumb-init, catatonit, docker-init, one
// file each; tend's own is package config. Each reads its peer's flags,
// messages and exit codes, and fills plan.Config's Behaviour as its peer
// behaves, over what config.FromEnv reads from tend's TEND_* variables.
//
// Mode, the table and Of live here, not in config, because the table
// names every mode and every mode imports config: adding a mode is its
// file here, its entry in modes, and its tests.
package mode

import (
	"io"

	"github.com/tend-init/tend/config"
	"github.com/tend-init/tend/plan"
)

// Build is what the binary knows of itself: its version, and the GODEBUG
// defaults its build gave the runtime (package main's godebug).
type Build struct {
	Version string
	Godebug string
	// Commit is the revision tend was built from, short, or "" when the
	// build does not know it: Docker reads it from `docker-init --version`.
	Commit string
}

// Task is what one command line asks of tend, exactly one of: run the app
// as Run says; make the one --check request, Healthcheck; or, with
// neither, exit at once with Exit, whatever there was to say (-h, a
// version, a usage message) already written.
type Task struct {
	Run         *plan.Config
	Healthcheck *config.Healthcheck
	Exit        int
}

// Mode is one command line tend answers to: whether args and env select
// it, and how to read it into a Task. A mode's file in this package
// defines one, fills plan.Config's Behaviour as its peer behaves, and
// joins modes. An error from Parse is one line, and tend exits with
// plan.ExitCode of it.
type Mode struct {
	Name string
	// Selects reports whether args and env ask for this mode, and the
	// command line Parse reads (args[0] is kept: messages name it).
	Selects func(args []string, env config.LookupEnv) ([]string, bool)
	Parse   func(args []string, env config.LookupEnv, b Build, stdout, stderr io.Writer) (Task, error)
}

// modes are the command lines other than tend's own, tried in order.
var modes = []Mode{dumbInitMode, catatonitMode, dockerInitMode}

// tendMode is tend's own command line (package config), the one taken
// when no other mode is selected.
var tendMode = Mode{Name: "tend", Parse: func(args []string, env config.LookupEnv, b Build, stdout, _ io.Writer) (Task, error) {
	cfg, check, err := config.Parse(args, env, b.Version, stdout)
	return Task{Run: cfg, Healthcheck: check}, err
}}

// Of is the mode args and env select, and the command line it reads.
func Of(args []string, env config.LookupEnv) (Mode, []string) {
	for _, m := range modes {
		if margs, ok := m.Selects(args, env); ok {
			return m, margs
		}
	}
	return tendMode, args
}
