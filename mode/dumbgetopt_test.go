package mode

import (
	"bytes"
	"strings"
	"testing"
)

// TestGlibcMessages: the dumb-init mode words each fault as glibc 2.36's
// getopt_long (dumb-init 1.2.5, Debian), less the "possibilities" glibc
// adds to an ambiguous prefix, which dumb-init's suite does not check.
func TestGlibcMessages(t *testing.T) {
	for args, want := range map[string]string{
		"--yolo x":     "p: unrecognized option '--yolo'\n",
		"-cx":          "p: invalid option -- 'x'\n",
		"--ver":        "p: option '--ver' is ambiguous\n",
		"--help=1":     "p: option '--help' doesn't allow an argument\n",
		"--rewrite":    "p: option '--rewrite' requires an argument\n",
		"-cr":          "p: option requires an argument -- 'r'\n",
		"-c-":          "p: invalid option -- '-'\n",
		"-c -- --yolo": "",
	} {
		var stderr bytes.Buffer
		i, done := dumbGetopt(append([]string{"p"}, strings.Fields(args)...), "p", &stderr, func(byte, string) bool { return false })
		if stderr.String() != want || done != (want != "") || (i < 0) != done {
			t.Errorf("%q: index %d, done %v, stderr %q; want %q", args, i, done, stderr.String(), want)
		}
	}
}
