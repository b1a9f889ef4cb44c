package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tend-init/tend/plan"
)

// FuzzParseConfig feeds arbitrary argument lists and variables to the flag
// parser: it must never panic, and every rejection must be a one-line
// usage error (exit 1) produced before anything starts.
func FuzzParseConfig(f *testing.F) {
	seeds := []struct{ args, env string }{
		{"-sgvv\x00-e3\x00--\x00app", ""},
		{"-se\x003\x00app", "TINI_SUBREAPER="},
		{"-e\x00300\x00app", ""},
		{"-r\x00TERM:QUIT\x00-r\x0015:0\x00app", "TEND_REMAP_EXIT=1 2"},
		{"--post-start\x00[\"a\",\x00app", ""},
		{"--grace-period\x00-5s\x00--hook-timeout\x00soon", "TEND_DRAIN_TIMEOUT=0"},
		{"-p\x00SIGRTMAX-2\x00--pre-stop\x00echo hi", "TINI_VERBOSITY=x"},
		{"--check\x00grpcs://unix:/g.sock:/svc\x00--check-ca\x00c.pem", ""},
		{"--check\x00http://unix:/a.sock:/x\x00--check-ca\x00ca.pem", ""},
		{"--post-stop\x00POST http://unix:/a.sock:/quit\x00app", "TEND_PRE_STOP={\"httpPost\":{\"port\":1,\"body\":\"x\"}}"},
		{"--\x00-h", ""},
		{"-", ""},
	}
	for _, s := range seeds {
		f.Add(s.args, s.env)
	}
	f.Fuzz(func(t *testing.T, args, env string) {
		var argv []string
		if args != "" {
			argv = strings.Split(args, "\x00")
		}
		name, val, _ := strings.Cut(env, "=")
		lookup := func(k string) (string, bool) {
			if k == name {
				return val, true
			}
			return "", false
		}
		var out bytes.Buffer
		cfg, check, err := Parse(append([]string{"tend"}, argv...), lookup, testVersion, &out)
		switch {
		case err == nil:
			if cfg != nil && check != nil {
				t.Fatal("both a config and a check")
			}
		case cfg != nil || check != nil:
			t.Fatalf("an error with something to run: %v", err)
		default:
			if code := plan.ExitCode(err); code != 1 {
				t.Fatalf("a bad flag must exit 1, got %d for %v", code, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
		}
	})
}

// FuzzParseDuration checks the duration rule shared by every lifecycle flag.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1s", "500ms", "0", "-5s", "soon", "2m30s", " 1h ", "1e9", "9999999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDuration(s)
		if err == nil && d <= 0 {
			t.Fatalf("%q accepted as %v", s, d)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
