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
		for _, flag := range []string{"--subreaper", "--remap-exit", "--kill-group", "--pdeathsig", "--warn-on-reap", "--verbose", "--rewrite-signal", "--pre-stop"} {
			if !strings.Contains(out.String(), flag) {
				t.Errorf("help lacks %s:\n%s", flag, out.String())
			}
		}
	}
	var out bytes.Buffer
	cfg, check, err := Parse([]string{"tend", "--version"}, envOf(), testVersion, &out)
	if err != nil || cfg != nil || check != nil || out.String() != "tend "+testVersion+"\n" {
		t.Fatalf("version: %v %q", err, out.String())
	}
}
