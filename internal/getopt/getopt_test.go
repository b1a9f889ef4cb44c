package getopt

import (
	"strings"
	"testing"
)

// TestGetopt reads both command lines with the one getopt: tini's table
// with Go's flag spellings, and dumb-init's with glibc's (prefixes,
// glibc's messages, checked against dumb-init 1.2.5 on Debian).
func TestGetopt(t *testing.T) {
	tini := Reader{GoFlags: true, Opts: []Option{{"subreaper", 's', false}, {"remap-exit", 'e', true}, {"grace-period", 0, true}}}
	// dumb-init's "+hvVcr:" (mode/dumbinit.go).
	dumb := Reader{Opts: []Option{{"help", 'h', false}, {"single-child", 'c', false}, {"rewrite", 'r', true}, {"verbose", 'v', false}, {"version", 'V', false}}}
	for _, c := range []struct {
		g    Reader
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
		n := c.g.Read(args, func(it Item) bool {
			fault := []string{"", "unknown", "ambiguous", "needs-arg", "no-arg"}[it.Fault]
			switch {
			case fault != "":
				got = append(got, fault+":"+it.Word)
			case it.HasVal:
				got = append(got, it.Opt.Long+"="+it.Val)
			default:
				got = append(got, it.Opt.Long)
			}
			return false
		})
		got = append(append(got, "|"), args[n:]...)
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%q: got %q, want %q", c.args, s, c.want)
		}
	}
}
