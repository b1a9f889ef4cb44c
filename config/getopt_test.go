package config

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestExpandShort(t *testing.T) {
	specs := flagSpecs()
	cases := []struct{ in, want []string }{
		{[]string{"-sgvv", "x", "-sg"}, []string{"--subreaper", "--kill-group", "--verbose", "--verbose", "x", "-sg"}},
		{[]string{"-se", "3", "--", "-sg"}, []string{"--subreaper", "--remap-exit", "3", "--", "-sg"}},
		{[]string{"-e7", "x"}, []string{"--remap-exit", "7", "x"}},
		{[]string{"-e=7", "x"}, []string{"--remap-exit", "7", "x"}},
		{[]string{"--post-start", "-sg", "x"}, []string{"--post-start", "-sg", "x"}},
		{[]string{"-grace-period", "1s", "x"}, []string{"--grace-period", "1s", "x"}},
		{[]string{"-sz", "x"}, []string{"--subreaper", "-z", "x"}},
		{[]string{"--nope", "x"}, []string{"--nope", "x"}},
		{[]string{"--subreaper=false", "-", "y"}, []string{"--subreaper=false", "-", "y"}},
		{[]string{"-h", "-sh", "x"}, []string{"-h", "--subreaper", "-h", "x"}}, // package flag's own -h
		{[]string{"-\x00"}, []string{"-\x00"}},                                 // a flag without a letter is not the letter 0
		{[]string{"-vse"}, []string{"--verbose", "--subreaper", "--remap-exit"}},
		{[]string{"-v-", "x"}, []string{"--verbose", "--", "x"}}, // as tend always read it
	}
	for _, c := range cases {
		if got, _ := expandShort(c.in, specs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q want %q", c.in, got, c.want)
		}
	}
}

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
