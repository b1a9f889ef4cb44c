package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The developer's machine is shared and busy: these tests hold the set-up
// and the make targets to that (hostile round 3, item 6).

// stubTools makes a directory of commands for PATH: each name maps to a
// shell body (#!/bin/sh prepended); names mapped to "" are linked to the
// real tool.
func stubTools(t *testing.T, tools map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range tools {
		p := filepath.Join(dir, name)
		if body == "" {
			real, err := exec.LookPath(name)
			if err != nil {
				t.Skipf("SKIPPED: no %s here: %v", name, err)
			}
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDepsWaitsForAptLocks: .ci/deps.sh, with another apt holding the
// lists lock for its first two tries, waits and carries on, and its
// install waits for the dpkg lock (DPkg::Lock::Timeout). apt-get here is a
// stub that logs its arguments; gcc is missing from PATH, so deps.sh has
// something to install.
func TestDepsWaitsForAptLocks(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("SKIPPED: deps.sh uses sudo when not root")
	}
	log := filepath.Join(t.TempDir(), "apt.log")
	bin := stubTools(t, map[string]string{
		"id": "", "grep": "", "cat": "",
		"sleep": "exit 0\n", // the waits, without the wait
		"apt-get": `echo "$*" >> "$APT_LOG"
case "$*" in *update*)
	n=$(grep -c update "$APT_LOG")
	if [ "$n" -le 2 ]; then
		echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
		echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
		exit 100
	fi;;
esac
exit 0
`,
	})
	cmd := exec.Command("bash", ".ci/deps.sh")
	cmd.Env = []string{"PATH=" + bin, "APT_LOG=" + log}
	out, err := cmd.CombinedOutput()
	calls, _ := os.ReadFile(log)
	t.Logf("deps.sh: %v\n%s\napt-get calls:\n%s", err, out, calls)
	if err != nil {
		t.Fatalf("deps.sh gave up while another apt held the lock: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[3], "install") {
		t.Fatalf("want three updates (two refused for the lock) and one install, got %q", lines)
	}
	if !strings.Contains(lines[3], "DPkg::Lock::Timeout=") {
		t.Errorf("the install does not wait for the dpkg lock: %q", lines[3])
	}
}

// TestMakeFuzzRetriesOnlyTheCoordinatorRace: make fuzz runs a target again
// when its only failure is the bare "context deadline exceeded" of Go's
// coordinator race (golang/go#75804), and fails at once on a finding. go
// here is a stub that plays one package with one fuzz target.
func TestMakeFuzzRetriesOnlyTheCoordinatorRace(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("SKIPPED: no make here: %v", err)
	}
	const deadline = "--- FAIL: FuzzX (8.01s)\n    context deadline exceeded\nFAIL\nexit status 1\nFAIL\texample.com/p\t8.1s\n"
	const crash = "--- FAIL: FuzzX (3.20s)\n    --- FAIL: FuzzX (0.00s)\n        x_test.go:9: boom\n\n    Failing input written to testdata/fuzz/FuzzX/0123\n    To re-run:\n    go test -run=FuzzX/0123\n    context deadline exceeded\nFAIL\n"
	for _, c := range []struct {
		name  string
		runs  []string // what each fuzz run prints; "" passes
		ok    bool
		tries int
	}{
		{name: "the race, then a pass", runs: []string{deadline, ""}, ok: true, tries: 2},
		{name: "a finding fails at once", runs: []string{crash, ""}, ok: false, tries: 1},
		{name: "the race every time fails after FUZZ_TRIES", runs: []string{deadline, deadline, deadline, ""}, ok: false, tries: 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, r := range c.runs {
				if err := os.WriteFile(filepath.Join(dir, "run"+string(rune('1'+i))), []byte(r), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gostub := filepath.Join(dir, "go")
			script := `#!/bin/sh
case "$1 $2" in
"list ./...") echo example.com/p; exit 0;;
"test -list") echo FuzzX; echo ok; exit 0;;
esac
n=$(( $(cat "$D/count" 2>/dev/null || echo 0) + 1 )); echo $n > "$D/count"
[ -s "$D/run$n" ] || exit 0
cat "$D/run$n"; exit 1
`
			if err := os.WriteFile(gostub, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("make", "--no-print-directory", "-s", "fuzz", "GO="+gostub, "FUZZTIME=1s")
			cmd.Env = append(os.Environ(), "D="+dir)
			out, err := cmd.CombinedOutput()
			count, _ := os.ReadFile(filepath.Join(dir, "count"))
			t.Logf("make fuzz: %v\n%s", err, out)
			if (err == nil) != c.ok {
				t.Errorf("make fuzz succeeded: %v, want %v", err == nil, c.ok)
			}
			if got := strings.TrimSpace(string(count)); got != string(rune('0'+c.tries)) {
				t.Errorf("%s fuzz runs, want %d", got, c.tries)
			}
		})
	}
}

// TestNoTargetKillsByName: no make target or CI script signals processes
// by name (pkill, killall): on a shared machine that hits other people's.
func TestNoTargetKillsByName(t *testing.T) {
	files := []string{"Makefile"}
	for _, glob := range []string{".ci/*", "bench/*.sh", "e2e/*.sh", "packaging/*.sh", "examples/recipes/*.sh"} {
		m, _ := filepath.Glob(glob) // a constant pattern cannot be malformed
		files = append(files, m...)
	}
	byName := regexp.MustCompile(`(?m)^[^#\n]*\b(pkill|killall)\b`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range byName.FindAll(b, -1) {
			t.Errorf("%s signals by name: %q", f, strings.TrimSpace(string(m)))
		}
	}
}
