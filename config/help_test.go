package config

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpAndVersion: -h and --help print the flag table and return
// nothing to run and no error (run exits 0 on it; see main's run_test.go);
// --version prints the version that package main passes in.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		var out bytes.Buffer
		if cfg, check, err := Parse(append([]string{"tend"}, args...), envOf(), testVersion, &out); err != nil || cfg != nil || check != nil {
			t.Fatalf("%v: want nothing to run and no error, got %v %v %v", args, cfg, check, err)
		}
		// Each value flag shows what it takes, never cli's bare "value".
		for _, flag := range []string{"--subreaper", "--remap-exit", "--kill-group", "--pdeathsig", "--warn-on-reap", "--verbose", "--rewrite-signal", "--pre-stop",
			"--user USER[:GROUP]", "--startup-probe-period DUR", "--live-probe-failure-threshold N"} {
			if !strings.Contains(out.String(), flag) {
				t.Errorf("help lacks %s:\n%s", flag, out.String())
			}
		}
	}
	var help bytes.Buffer
	_, _, _ = Parse([]string{"tend", "-h"}, envOf(), testVersion, &help) // checked above
	for _, l := range strings.Split(help.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[0], "--") && f[1] == "value" {
			t.Errorf("-h shows a bare placeholder: %s", l)
		}
	}
	var out bytes.Buffer
	cfg, check, err := Parse([]string{"tend", "--version"}, envOf(), testVersion, &out)
	if err != nil || cfg != nil || check != nil || out.String() != "tend "+testVersion+"\n" {
		t.Fatalf("version: %v %q", err, out.String())
	}
}
