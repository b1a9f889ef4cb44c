package reaper

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStartScriptRunsShebanglessScript: a script without "#!" runs under
// /bin/sh as glibc's execvp runs it: $0 is the path, the arguments follow,
// and its exit code comes back. Plain Start still fails with ENOEXEC.
func TestStartScriptRunsShebanglessScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(script, []byte(`echo "0=$0 1=$1 n=$#" > "$OUT"; exit 7`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := New(nil)
	if _, err := r.Start(&exec.Cmd{Path: script, Args: []string{"x"}}); !errors.Is(err, unix.ENOEXEC) {
		t.Fatalf("Start: %v, want ENOEXEC", err)
	}
	cmd := &exec.Cmd{Path: script, Args: []string{"the-argv0", "a", "b c"}, Env: []string{"OUT=" + out}}
	c, err := r.StartScript(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if e := waitDone(t, r, c); e.Code() != 7 {
		t.Fatalf("exit %d, want 7", e.Code())
	}
	if b, _ := os.ReadFile(out); string(b) != "0="+script+" 1=a n=2\n" {
		t.Fatalf("the script saw %q", b)
	}
	if cmd.Path != Shell || len(cmd.Args) != 4 || cmd.Args[0] != Shell || cmd.Args[1] != script {
		t.Fatalf("cmd shows %q %q, not what ran", cmd.Path, cmd.Args)
	}
	// With no argv at all.
	c, err = r.StartScript(&exec.Cmd{Path: script, Env: []string{"OUT=" + out}})
	if err != nil {
		t.Fatal(err)
	}
	if e := waitDone(t, r, c); e.Code() != 7 {
		t.Fatalf("exit %d, want 7", e.Code())
	}
	if b, _ := os.ReadFile(out); string(b) != "0="+script+" 1= n=0\n" {
		t.Fatalf("with no argv the script saw %q", b)
	}
}

// TestStartScriptLeavesBinariesAlone: a file the kernel refuses whose first
// line holds a NUL (a binary for another machine) is not fed to the shell.
func TestStartScriptLeavesBinariesAlone(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "foreign")
	if err := os.WriteFile(bin, []byte("\x7fELF\x02\x01\x01\x00garbage\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := New(nil)
	cmd := &exec.Cmd{Path: bin, Args: []string{bin}}
	if _, err := r.StartScript(cmd); !errors.Is(err, unix.ENOEXEC) {
		t.Fatalf("StartScript: %v, want ENOEXEC", err)
	}
	if cmd.Path != bin {
		t.Fatalf("cmd.Path became %q", cmd.Path)
	}
}
