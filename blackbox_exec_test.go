package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptWithoutShebang: `tend -- ./script` where the script has no
// "#!" runs it with /bin/sh, as tini does through glibc's execvp, and
// passes its exit code through; $0 is the path that was run, found on PATH
// or given. A binary the kernel cannot run still exits 126.
func TestScriptWithoutShebang(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte(`echo "0=$0 1=$1 n=$#"; exit 7`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign")
	if err := os.WriteFile(foreign, []byte("\x7fELF\x02\x01\x01\x00garbage\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    opts
		args []string
		out  string
	}{
		{"relative path", opts{pid1: true, dir: dir}, []string{"--", "./script", "a", "b c"}, "0=./script 1=a n=2"},
		{"on PATH", opts{env: []string{"PATH=" + dir + ":/usr/bin:/bin"}}, []string{"-s", "script"}, "0=" + script + " 1= n=0"},
	} {
		code, out, errOut := runTend(t, c.o, c.args...)
		if code != 7 || out != c.out {
			t.Errorf("%s: exit %d, stdout %q; want 7, %q\n%s", c.name, code, out, c.out, errOut)
		}
	}
	code, out, errOut := runTend(t, opts{pid1: true}, "--", foreign)
	if code != 126 || out != "" || !strings.Contains(errOut, "exec format error") {
		t.Errorf("foreign binary: exit %d, stdout %q, stderr %q; want 126 and exec format error", code, out, errOut)
	}
}
