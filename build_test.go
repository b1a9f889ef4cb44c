package main_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gobuild is the one file that names tend's build settings.
const gobuild = "packaging/gobuild.sh"

// TestBuildsTurnAsyncPreemptionOff: every build of tend that ships or is
// tested gives the runtime asyncpreemptoff=1 and tells tend so; without
// it the dumb-init mode cannot forward URG (TestDumbInitProxiesSignals
// waits for it) and would otherwise pass on the runtime's own. The
// settings are named once, in packaging/gobuild.sh: every build path runs
// it, and no other file repeats them.
func TestBuildsTurnAsyncPreemptionOff(t *testing.T) {
	b, err := os.ReadFile(gobuild)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"\nGODEBUGS=asyncpreemptoff=1\n", "-X runtime.godebugDefault=$GODEBUGS -X main.godebug=$GODEBUGS", `-ldflags "$ldflags" "$@"`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %q", gobuild, want)
		}
	}
	// Each way tend is built: the file, and what in it runs the script.
	for f, want := range map[string]string{
		"Makefile":                      "./packaging/gobuild.sh", // make build, release, bench
		"Dockerfile":                    "RUN VERSION=${VERSION} sh packaging/gobuild.sh -o /out/tend .",
		"testmain_test.go":              `"sh", []string{"packaging/gobuild.sh"`,
		"examples/build_test.go":        `"sh", "packaging/gobuild.sh"`,
		"bench/run.sh":                  "packaging/gobuild.sh -o",
		"e2e/images_test.go":            gobuild,
		"e2e/grpcprobe/harness_test.go": gobuild,
		"lifecycle/dumbinit_test.go":    gobuild,
	} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not build tend through %s (want %q)", f, gobuild, want)
		}
	}
	if b, _ := os.ReadFile("Makefile"); regexp.MustCompile(`\$\(GO\) build [^\n]* \.\s*(\n|;|\))`).Match(b) {
		t.Errorf("the Makefile builds tend with $(GO) build, not through %s", gobuild)
	}
	// No copy of the settings anywhere a build could read them.
	copied := regexp.MustCompile(`urfave_cli_no_|runtime\.godebugDefault=|-X main\.(version|godebug)`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (path == "testdata" || path == ".git" || path == "docs"):
			return filepath.SkipDir
		case d.IsDir() || path == gobuild || path == "build_test.go":
			return nil
		}
		name := d.Name()
		if name != "Makefile" && name != "Dockerfile" && !strings.HasSuffix(name, ".sh") && !strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(path, ".ci/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if copied.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasPrefix(strings.TrimSpace(l), "//") {
				t.Errorf("%s:%d repeats a build setting of %s: %s", path, i+1, gobuild, strings.TrimSpace(l))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGoModSetsNoGODEBUG: cmd/go passes its own -X runtime.godebugDefault
// (from go.mod's godebug lines, //go:debug directives, or a go line older
// than the toolchain) before the one packaging/gobuild.sh adds, and the
// last -X wins, so such a default would be dropped without a word. The
// script refuses to build then; this fails first.
func TestGoModSetsNoGODEBUG(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.DefaultGODEBUG}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if d := strings.TrimSpace(string(out)); d != "" {
		t.Errorf("cmd/go sets GODEBUG defaults %q that %s's -X would drop: put them in its GODEBUGS and take them out of go.mod", d, gobuild)
	}
}
