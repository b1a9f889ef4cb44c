package mode

import (
	"io"
	"strings"
	"testing"

	"github.com/tend-init/tend/config"
)

// envOf is an environment of name, value pairs, for config.LookupEnv.
func envOf(kv ...string) config.LookupEnv {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestModeOf: the mode each way of asking selects, and the one task each
// command line gives: run, check, or exit at once with a code.
func TestModeOf(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  []string
		mode string
		task string // run, check or exit N
	}{
		{args: []string{"tend", "app"}, mode: "tend", task: "run app"},
		{args: []string{"tend", "-h"}, mode: "tend", task: "exit 0"},
		{args: []string{"tend", "--pause"}, mode: "tend", task: "run "},
		{args: []string{"tend", "--version"}, mode: "tend", task: "exit 0"},
		{args: []string{"tend", "--check", "http://127.0.0.1:1/"}, mode: "tend", task: "check"},
		{args: []string{"/usr/bin/dumb-init", "app"}, mode: "dumb-init", task: "run app"},
		{args: []string{"tend", "--dumb-init", "-c", "app"}, mode: "dumb-init", task: "run app"},
		{args: []string{"tend", "app"}, env: []string{"TEND_MODE", "dumb-init"}, mode: "dumb-init", task: "run app"},
		{args: []string{"tend", "app"}, env: []string{"TEND_MODE", "tini"}, mode: "tend", task: "run app"},
		{args: []string{"dumb-init", "-V"}, mode: "dumb-init", task: "exit 0"},
		{args: []string{"dumb-init"}, mode: "dumb-init", task: "exit 1"},
		{args: []string{"dumb-init", "-r", "99:1", "app"}, mode: "dumb-init", task: "exit 1"},
	} {
		env := envOf(c.env...)
		m, args := Of(c.args, env)
		task, err := m.Parse(args, env, Build{Version: "v0"}, io.Discard, io.Discard)
		if err != nil {
			t.Errorf("%q %q: %v", c.args, c.env, err)
			continue
		}
		got := "exit " + string(rune('0'+task.Exit))
		switch {
		case task.Run != nil && task.Healthcheck == nil:
			got = "run " + strings.Join(task.Run.Args, " ")
		case task.Healthcheck != nil && task.Run == nil:
			got = "check"
		case task.Run != nil:
			got = "run and check"
		}
		if task.Run != nil && task.Run.Version != "v0" {
			// The User-Agent of HTTP probes and hooks, and /metrics' tend_build_info.
			t.Errorf("%q %q: version %q, want the build's, v0", c.args, c.env, task.Run.Version)
		}
		if m.Name != c.mode || got != c.task {
			t.Errorf("%q %q: mode %s, task %q; want %s, %q", c.args, c.env, m.Name, got, c.mode, c.task)
		}
	}
}
