package config

import (
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

// TestReadmeMakeTargets: every make target the README names must exist.
// Its command lines are package mode's TestReadmeCommands: they may
// select any mode.
func TestReadmeMakeTargets(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile("`make (\\w+)`").FindAllStringSubmatch(string(b), -1) {
		if !regexp.MustCompile("(?m)^" + m[1] + ":").Match(mk) {
			t.Errorf("README names make %s, which the Makefile lacks", m[1])
		}
		n++
	}
	if n == 0 {
		t.Fatal("found no make target in the README")
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
		if d.IsDir() && testSupport(t, path) {
			return filepath.SkipDir // what it reads is the tests' environment, not tend's
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

// testSupport says whether dir holds a package only tests import
// (internal/rawpeer, internal/grpcio, ...), as its doc comment says.
func testSupport(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "Only tests import it") {
			return true
		}
	}
	return false
}
