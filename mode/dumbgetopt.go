package mode

import (
	"io"
	"strings"

	"github.com/tend-init/tend/internal/getopt"
)

// dumbGetopt is getopt_long over dumb-init's table with "+" (it stops at
// the first operand or after "--"), calling opt for each option. It
// returns the index of the program, or done when opt said so or a word
// was wrong (then -1, with glibc's message on stderr).
func dumbGetopt(args []string, prog string, stderr io.Writer, opt func(c byte, val string) bool) (int, bool) {
	if len(args) < 2 {
		return len(args), false
	}
	bad, done := false, false
	n := getopt.Reader{Opts: dumbInitOptions}.Read(args[1:], func(it getopt.Item) bool {
		if bad = it.Fault != getopt.OK; bad {
			_, _ = io.WriteString(stderr, getopt.Message(prog, it)) // stderr gone: the exit code still says it
			return true
		}
		done = opt(it.Opt.Short, it.Val)
		return done
	})
	if bad {
		return -1, true
	}
	if !done && n < len(args)-1 && args[1+n] == "--" {
		n++
	}
	return 1 + n, done
}

// parseDumbRewrite reads "s:r" as dumb-init's sscanf("%d:%d") does:
// optional blanks and a sign before each number, anything after the second
// ignored; s must be 1..31 and r 0..31 (0: drop the signal).
func parseDumbRewrite(s string) (from, to int, ok bool) {
	from, rest, ok := scanInt(s)
	if !ok || !strings.HasPrefix(rest, ":") {
		return 0, 0, false
	}
	to, _, ok = scanInt(rest[1:])
	if !ok || from < 1 || from > dumbInitMaxSig || to < 0 || to > dumbInitMaxSig {
		return 0, 0, false
	}
	return from, to, true
}

// scanInt is sscanf's %d: blanks, a sign, then at least one digit. A
// value too large for the range check saturates, which the check rejects.
func scanInt(s string) (n int, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n < 1<<20 {
			n = n*10 + int(s[i]-'0')
		}
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	if neg {
		n = -n
	}
	return n, s[i:], true
}
