package config

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's top level, seen from this package's
// directory, where go test runs: the README, the Makefile and the code
// these tests check are there.
const repoRoot = ".."

// TestReadmeCommands keeps the README honest: every tend command line in
// it must parse, every make target it names must exist, and every flag or
// variable it documents must be one tend knows. The commands themselves run
// elsewhere: make test in CI, make run in .ci/run, the Docker lines through
// podman in examples/.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
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
		if dargs, ok := DumbInitMode(args, envOf()); ok {
			if cfg, _, err := ParseDumbInit(dargs, envOf(), "", &bytes.Buffer{}); err != nil || cfg == nil {
				t.Errorf("README command %q: %v", line, err)
			}
		} else if _, _, err := Parse(args, envOf(), testVersion, &bytes.Buffer{}); err != nil {
			t.Errorf("README command %q: %v", line, err)
		}
		n++
	}
	known := map[string]bool{"help": true, "h": true, "dumb-init": true, "TEND_MODE": true}
	for _, o := range dumbInitOptions {
		known[o.Long] = true
	}
	for _, s := range flagSpecs() {
		known[s.long] = true
		for _, e := range s.env {
			known[e] = true
		}
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

// TestReadmeFlagReference keeps the README's flag reference complete: every
// flag in flagSpecs (and so in -h) has a row there that names its short
// form, every one of its variables and its default. Every TEND_* variable
// that tend's code sets or reads must appear in the README too.
func TestReadmeFlagReference(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, ref, ok := strings.Cut(string(b), "\n## Flag reference\n")
	if !ok {
		t.Fatal("README has no \"## Flag reference\" section")
	}
	if i := strings.Index(ref, "\n## "); i >= 0 {
		ref = ref[:i]
	}
	var rows []string
	for _, line := range strings.Split(ref, "\n") {
		if strings.HasPrefix(line, "| `-") {
			rows = append(rows, line)
		}
	}
	// rowFor is the row that names --long as a flag: in backticks, alone
	// or followed by its argument.
	rowFor := func(long string) (string, bool) {
		re := regexp.MustCompile("`--" + regexp.QuoteMeta(long) + "[` ]")
		for _, r := range rows {
			if re.MatchString(r) {
				return r, true
			}
		}
		return "", false
	}
	for _, s := range flagSpecs() {
		row, ok := rowFor(s.long)
		if !ok {
			t.Errorf("README's flag reference has no row for --%s", s.long)
			continue
		}
		if s.short != "" && !regexp.MustCompile("`-"+s.short+"[` ]").MatchString(row) {
			t.Errorf("README's row for --%s lacks -%s: %s", s.long, s.short, row)
		}
		for _, e := range s.env {
			if !strings.Contains(row, "`"+e+"`") {
				t.Errorf("README's row for --%s lacks its variable %s: %s", s.long, e, row)
			}
		}
		if s.def != "" && !strings.Contains(row, s.def) {
			t.Errorf("README's row for --%s lacks its default %q: %s", s.long, s.def, row)
		}
	}
	if _, ok := rowFor("help"); !ok {
		t.Error("README's flag reference has no row for --help")
	}

	// Variables named in the code outside flagSpecs: those that tend sets
	// for hooks (TEND_HOOK, ...) and any read directly.
	readme := string(b)
	lit := regexp.MustCompile(`"(TEND_[A-Z0-9_]*[A-Z0-9])[="]`)
	err = filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "bench" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range lit.FindAllStringSubmatch(string(src), -1) {
			if !strings.Contains(readme, "`"+m[1]+"`") {
				t.Errorf("%s uses %s, which README.md does not document", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
