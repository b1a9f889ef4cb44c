package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeCommands keeps the README honest: every tend command line in
// it must parse, every make target it names must exist, and every flag or
// variable it documents must be one tend knows. The commands themselves run
// elsewhere: make test in CI, make run in .ci/run, the Docker lines through
// podman in examples/.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`make (\\w+)`").FindAllStringSubmatch(readme, -1) {
		if !regexp.MustCompile("(?m)^" + m[1] + ":").Match(mk) {
			t.Errorf("README names make %s, which the Makefile lacks", m[1])
		}
	}
	n := 0
	for _, line := range strings.Split(readme, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "`tend "); i >= 0 {
			line = strings.SplitN(line[i+1:], "`", 2)[0] // an inline command
		}
		if !strings.HasPrefix(line, "tend ") {
			continue
		}
		line, _, _ = strings.Cut(line, " #")
		args := shellWords(strings.NewReplacer("[", "", "]", "").Replace(line))
		if _, _, err := parseConfig(args, envOf(), &bytes.Buffer{}); err != nil {
			t.Errorf("README command %q: %v", line, err)
		}
		n++
	}
	known := map[string]bool{"help": true, "h": true}
	for _, s := range flagSpecs() {
		known[s.long] = true
		for _, e := range s.env {
			known[e] = true
		}
	}
	for _, m := range regexp.MustCompile("`(--[a-z-]+)").FindAllStringSubmatch(readme, -1) {
		if !known[strings.TrimPrefix(m[1], "--")] && m[1] != "--stop-timeout" && m[1] != "--rewrite" && m[1] != "--mount-proc" && m[1] != "--target" && m[1] != "--build-arg" {
			t.Errorf("README documents unknown flag %s", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`((?:TEND|TINI)_[A-Z_]+)").FindAllStringSubmatch(readme, -1) {
		if !known[m[1]] && m[1] != "TEND_HOOK" && m[1] != "TEND_APP_PID" && m[1] != "TEND_EXIT_CODE" {
			t.Errorf("README documents unknown variable %s", m[1])
		}
	}
	t.Logf("%d tend command lines parsed", n)
	if n == 0 {
		t.Fatal("found no tend command in the README")
	}
}

// shellWords splits a command line on spaces, honouring single quotes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
