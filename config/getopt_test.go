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

// TestGetopt reads both command lines with the one getopt: tini's table
// with Go's flag spellings, and dumb-init's with glibc's (prefixes,
// glibc's messages, checked against dumb-init 1.2.5 on Debian).
func TestGetopt(t *testing.T) {
	tini := getopt{goFlags: true, opts: []option{{"subreaper", 's', false}, {"remap-exit", 'e', true}, {"grace-period", 0, true}}}
	dumb := getopt{opts: dumbInitOptions}
	for _, c := range []struct {
		g    getopt
		args string
		want string // each item as opt=val, or the fault and word; then | and the operands
	}{
		{tini, "-se3 x -s", "subreaper remap-exit=3 | x -s"},
		{tini, "-s -e 3 -- -s", "subreaper remap-exit=3 | -- -s"},
		{tini, "-grace-period 1s --s --subreaper=no", "grace-period=1s subreaper subreaper=no |"},
		{tini, "-e=7 -zs - x", "remap-exit=7 unknown:-z subreaper | - x"},
		{tini, "--grace -e", "unknown:--grace needs-arg:-e |"},
		{dumb, "-vc x -v", "verbose single-child | x -v"},
		{dumb, "--single --rewrite=1:2 -r3:4 -r 5:6 --ver", "single-child rewrite=1:2 rewrite=3:4 rewrite=5:6 ambiguous:--ver |"},
		{dumb, "-grace --help=1 -r", "unknown:-g rewrite=ace no-arg:--help=1 needs-arg:-r |"},
		{dumb, "--=x --rewrite", "ambiguous:--=x needs-arg:--rewrite |"},
	} {
		var got []string
		args := strings.Fields(c.args)
		n := c.g.read(args, func(it optItem) bool {
			fault := []string{"", "unknown", "ambiguous", "needs-arg", "no-arg"}[it.fault]
			switch {
			case fault != "":
				got = append(got, fault+":"+it.word)
			case it.hasVal:
				got = append(got, it.opt.long+"="+it.val)
			default:
				got = append(got, it.opt.long)
			}
			return false
		})
		got = append(append(got, "|"), args[n:]...)
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%q: got %q, want %q", c.args, s, c.want)
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
