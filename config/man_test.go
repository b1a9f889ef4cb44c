package config

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// make man writes the page through TestManPage, after its checks pass:
//
//	go test -run '^TestManPage$' ./config -args -man.out=FILE -man.version=V -man.date=YYYY-MM-DD
var (
	manOut     = flag.String("man.out", "", "TestManPage writes tend(1) to this file")
	manVersion = flag.String("man.version", "dev", "the version on tend(1)'s header line")
	manDate    = flag.String("man.date", "1970-01-01", "the date on tend(1)'s header line")
)

// TestManPage keeps tend(1) from drifting: every flag -h shows, every
// variable and every default in flagSpecs must be on the page, and the
// page must be roff that mandoc and groff read without a warning.
func TestManPage(t *testing.T) {
	specs := flagSpecs()
	var b bytes.Buffer
	if err := writeManPage(&b, specs, *manVersion, *manDate); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	h, err := parseHelp(specs)
	if err != nil {
		t.Fatal(err)
	}
	// One row per flag plus --help: a row that parseHelp merged or lost
	// would leave a flag off the page.
	if len(h.rows) != len(specs)+1 {
		t.Errorf("parsed %d help rows for %d flags and --help", len(h.rows), len(specs))
	}
	// Each -h row heads an OPTIONS entry, and each flag has a row.
	var want []string
	for _, row := range h.rows {
		want = append(want, "\n.TP\n"+manFlagName(row[0])+"\n")
	}
	for _, s := range specs {
		want = append(want, `\fB`+roff("--"+s.long)+`\fR`)
		if s.short != "" {
			want = append(want, `\fB`+roff("-"+s.short)+`\fR`)
		}
		for _, e := range s.env {
			want = append(want, "\n.TP\n"+`\fB`+roff(e)+`\fR`+"\nAs "+`\fB`+roff("--"+s.long)+`\fR`)
		}
		if s.def != "" {
			want = append(want, "Default: "+roff(s.def))
		}
		if len(s.env) > 0 {
			want = append(want, "Variables: "+manVars(s.env))
		}
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("tend(1) lacks %q", w)
		}
	}
	for _, sec := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS"} {
		if !strings.Contains(page, "\n.SH "+sec+"\n") {
			t.Errorf("tend(1) lacks the %s section", sec)
		}
	}
	lintMan(t, page)
	if *manOut != "" && !t.Failed() {
		if err := os.WriteFile(*manOut, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lintMan runs mandoc's and groff's checkers, where installed (make deps
// installs both); each must print nothing.
func lintMan(t *testing.T, page string) {
	checkers := [][]string{
		{"mandoc", "-T", "lint", "-W", "warning"},
		{"groff", "-man", "-z", "-ww", "-rCHECKSTYLE=3"},
	}
	for _, c := range checkers {
		if _, err := exec.LookPath(c[0]); err != nil {
			t.Logf("%s is not installed: tend(1) not checked with it (make deps installs it)", c[0])
			continue
		}
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Stdin = strings.NewReader(page)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
}
