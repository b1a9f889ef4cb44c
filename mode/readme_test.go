package mode

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tend-init/tend/config"
)

// TestReadmeCommands keeps the README honest: every tend command line in
// it must parse in the mode it selects (Of, as main reads it), and every
// flag or variable it documents must be one tend knows: a mode's option,
// or a flag or variable tend's -h shows (config's flag table renders
// it). The commands themselves run elsewhere: make test in CI, make run
// in .ci/run, the Docker lines through podman in examples/. The README's
// make targets are config's TestReadmeMakeTargets.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
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
		m, margs := Of(args, envOf())
		task, err := m.Parse(margs, envOf(), Build{Version: "v0.0.0-test"}, io.Discard, io.Discard)
		if err == nil && task.Run == nil && task.Healthcheck == nil && task.Exit != 0 {
			err = fmt.Errorf("nothing to run, exit %d", task.Exit)
		}
		if err != nil {
			t.Errorf("README command %q (mode %s): %v", line, m.Name, err)
		}
		n++
	}
	known := map[string]bool{"help": true, "h": true, "dumb-init": true, "TEND_MODE": true}
	for _, o := range append(dumbInitOptions, catatonitOptions...) {
		known[o.Long] = true
	}
	for name := range tendHelpNames(t) {
		known[name] = true
	}
	for _, m := range regexp.MustCompile("`(--[a-z-]+)").FindAllStringSubmatch(readme, -1) {
		// Other programs' flags the README quotes: docker's, unshare's,
		// podman's.
		others := map[string]bool{"--stop-timeout": true, "--rewrite": true, "--mount-proc": true, "--target": true,
			"--build-arg": true, "--infra-command": true, "--sdnotify": true}
		if !known[strings.TrimPrefix(m[1], "--")] && !others[m[1]] {
			t.Errorf("README documents unknown flag %s", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`((?:TEND|TINI)_[A-Z_]+)").FindAllStringSubmatch(readme, -1) {
		if !known[m[1]] && m[1] != "TEND_HOOK" && m[1] != "TEND_APP_PID" && m[1] != "TEND_EXIT_CODE" && m[1] != "TEND_STOP_REASON" && m[1] != "TEND_STOP_DETAIL" {
			t.Errorf("README documents unknown variable %s", m[1])
		}
	}
	t.Logf("%d tend command lines parsed", n)
	if n == 0 {
		t.Fatal("found no tend command in the README")
	}
}

// tendHelpNames are the long flags and the variables tend -h shows, one
// flag a line: "   --NAME[ ARG][, -X[ ARG]]   usage (env A, B)[ (default: D)]".
func tendHelpNames(t *testing.T) map[string]bool {
	var help bytes.Buffer
	if _, _, err := config.Parse([]string{"tend", "-h"}, envOf(), "v0", &help); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	flagRe, envRe := regexp.MustCompile(`^   --([a-z-]+)`), regexp.MustCompile(`\(env ([A-Z0-9_, ]+)\)`)
	for _, l := range strings.Split(help.String(), "\n") {
		f := flagRe.FindStringSubmatch(l)
		if f == nil {
			continue
		}
		names[f[1]] = true
		if e := envRe.FindStringSubmatch(l); e != nil {
			for _, v := range strings.Split(e[1], ", ") {
				names[v] = true
			}
		}
	}
	if !names["subreaper"] || !names["TINI_KILL_PROCESS_GROUP"] || !names["live-probe-timeout"] {
		t.Fatalf("tend -h read as %v", names)
	}
	return names
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
