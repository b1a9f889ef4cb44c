package hooks

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in    string
		shell string
		argv  []string
		err   string
	}{
		{in: "echo hi", shell: "echo hi"},
		{in: "  echo [x]  ", shell: "  echo [x]  "},
		{in: `["/bin/notify","up"]`, argv: []string{"/bin/notify", "up"}},
		{in: ` ["a", "b,c"] `, argv: []string{"a", "b,c"}},
		{in: "", err: "empty"},
		{in: " \t\n", err: "empty"},
		{in: "[", err: "JSON"},
		{in: `["a",]`, err: "JSON"},
		{in: `[1]`, err: "JSON"},
		{in: `{"a":1}`, shell: `{"a":1}`},
		{in: `[]`, err: "empty program"},
		{in: `[""]`, err: "empty program"},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse(%q) error = %v, want one line containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got.Shell != c.shell || !reflect.DeepEqual(got.Argv, c.argv) {
			t.Errorf("Parse(%q) = %+v, %v", c.in, got, err)
		}
	}
}

func TestCmdForms(t *testing.T) {
	sh, err := Command{Shell: "exit 3"}.Cmd([]string{"A=1"})
	if err != nil || sh.Path != "/bin/sh" || !reflect.DeepEqual(sh.Args, []string{"/bin/sh", "-c", "exit 3"}) {
		t.Fatalf("shell form: %+v %v", sh, err)
	}
	if !sh.SysProcAttr.Setpgid {
		t.Fatal("hooks must lead their own process group")
	}
	ex, err := Command{Argv: []string{"true", "x"}}.Cmd(nil)
	if err != nil || !strings.HasSuffix(ex.Path, "/true") || !reflect.DeepEqual(ex.Args, []string{"true", "x"}) {
		t.Fatalf("exec form: %+v %v", ex, err)
	}
	if _, err := (Command{Argv: []string{"/no/such/prog"}}).Cmd(nil); err == nil {
		t.Fatal("a missing program must fail before start")
	}
}
