package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/tend-init/tend/config"
)

// TestRun covers what run adds to config.Parse: help and the version exit
// 0 with nothing on stderr; a rejected flag or variable, however long or
// strange its value, is one escaped line on stderr and exit 1; a --check
// that cannot connect names the URL and exits 1. config's tests hold the
// full tables of what Parse accepts and rejects.
func TestRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	_ = ln.Close() // nothing listens there now: --check's connect is refused
	long := strings.Repeat("\x1b[31m\n", 20000)
	env := func(kv ...string) config.LookupEnv {
		return func(k string) (string, bool) {
			if len(kv) == 2 && k == kv[0] {
				return kv[1], true
			}
			return "", false
		}
	}
	cases := []struct {
		args   []string
		env    config.LookupEnv
		code   int
		stdout string // a prefix
		stderr string // a substring; "" wants nothing on stderr
	}{
		{[]string{"-h"}, env(), 0, "NAME:\n   tend - ", ""},
		{[]string{"--help"}, env(), 0, "NAME:\n   tend - ", ""},
		{[]string{"--version"}, env(), 0, "tend " + version + "\n", ""},
		{[]string{"-e", "300", "app"}, env(), 1, "", `invalid --remap-exit/-e value "300"`},
		{[]string{"--bogus", "app"}, env(), 1, "", "bogus"},
		{[]string{"--grace-period", long, "app"}, env(), 1, "", "--grace-period"},
		{[]string{"--post-start", "[" + long, "app"}, env(), 1, "", "--post-start"},
		{[]string{"app"}, env("TINI_VERBOSITY", long), 1, "", "TINI_VERBOSITY"},
		{[]string{"--check", " "}, env(), 1, "", "--check needs a URL"},
		{[]string{"--check", closed, "--check-timeout", "5s"}, env(), 1, "", "check " + closed + ": "},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"tend"}, c.args...), c.env, &stdout, &stderr)
		msg := strings.TrimSuffix(stderr.String(), "\n")
		switch {
		case code != c.code || !strings.HasPrefix(stdout.String(), c.stdout):
			t.Errorf("%.40q: exit %d, stdout %.80q; want %d and %q", c.args, code, stdout.String(), c.code, c.stdout)
		case c.stderr == "" && stderr.Len() != 0:
			t.Errorf("%.40q: want nothing on stderr, got %.300q", c.args, stderr.String())
		case c.stderr != "" && (!strings.Contains(msg, c.stderr) || len(msg) > 500 || strings.ContainsAny(msg, "\n\r\x1b\x00")):
			t.Errorf("%.40q: want one short escaped line naming %q on stderr, got %d bytes: %.300q", c.args, c.stderr, len(msg), msg)
		}
	}
}
