package config

import (
	"fmt"
	"io"
	"strings"
)

// dumbGetopt is glibc's getopt_long for dumb-init's table, with "+": it
// stops at the first operand or after "--". It returns the index of the
// program, or done when opt said so or an option was wrong (then -1, with
// glibc's message on stderr).
func dumbGetopt(args []string, prog string, stderr io.Writer, opt func(c byte, val string) bool) (int, bool) {
	i := 1
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			return i + 1, false
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o, msg := dumbLong(name)
			if msg != "" {
				fmt.Fprintf(stderr, msg, prog, a)
				return -1, true
			}
			long := dumbInitOptions[o]
			switch {
			case !long.arg && hasVal:
				fmt.Fprintf(stderr, "%s: option '--%s' doesn't allow an argument\n", prog, long.long)
				return -1, true
			case long.arg && !hasVal:
				if i+1 >= len(args) {
					fmt.Fprintf(stderr, "%s: option '--%s' requires an argument\n", prog, long.long)
					return -1, true
				}
				i++
				val = args[i]
			}
			i++
			if opt(long.short, val) {
				return i, true
			}
		case len(a) > 1 && a[0] == '-':
			i++
			for j := 1; j < len(a); j++ {
				c := a[j]
				o := dumbShort(c)
				if o < 0 {
					fmt.Fprintf(stderr, "%s: invalid option -- '%c'\n", prog, c)
					return -1, true
				}
				val := ""
				if dumbInitOptions[o].arg {
					switch {
					case j+1 < len(a):
						val = a[j+1:]
					case i < len(args):
						val = args[i]
						i++
					default:
						fmt.Fprintf(stderr, "%s: option requires an argument -- '%c'\n", prog, c)
						return -1, true
					}
					j = len(a)
				}
				if opt(c, val) {
					return i, true
				}
			}
		default:
			return i, false // "+": the first operand is the program
		}
	}
	return i, false
}

// dumbLong finds a long option by its name or an unambiguous prefix, as
// getopt_long does; on failure it returns glibc's message, a format taking
// the program and the argument.
func dumbLong(name string) (int, string) {
	found := -1
	for o, long := range dumbInitOptions {
		if long.long == name {
			return o, ""
		}
		if strings.HasPrefix(long.long, name) {
			if found >= 0 {
				return -1, "%s: option '%s' is ambiguous\n"
			}
			found = o
		}
	}
	if found < 0 || name == "" {
		return -1, "%s: unrecognized option '%s'\n"
	}
	return found, ""
}

func dumbShort(c byte) int {
	for o, long := range dumbInitOptions {
		if long.short == c {
			return o
		}
	}
	return -1
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
