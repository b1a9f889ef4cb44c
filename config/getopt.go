package config

import (
	"fmt"
	"strings"
)

// option is one row of a getopt_long table. It is an alias of the unnamed
// struct so that a table may be written with either type.
type option = struct {
	long  string
	short byte // 0: none
	arg   bool // takes an argument
}

// optFault says why getopt could not read a word.
type optFault int

const (
	optOK        optFault = iota
	optUnknown            // not in the table
	optAmbiguous          // a prefix of several long names
	optNeedsArg           // takes an argument, and none is left
	optNoArg              // --name=value for an option without an argument
)

// optItem is one thing getopt read: an option with its argument, or, when
// fault is set, a word it could not read.
type optItem struct {
	opt    option // unset for optUnknown and optAmbiguous
	val    string
	hasVal bool // val was given: always, for an option with an argument
	fault  optFault
	word   string // as written: the whole word, or "-" and the letter in a cluster
}

// getopt reads a command line against one table as glibc's getopt_long
// with a "+" optstring does: letters combine (-sg), and one that takes an
// argument takes the rest of its word or else the next (-se3, -se 3); a
// long name takes "=value" or the next word; reading stops at "--" or at
// the first operand, so the program's own flags are untouched.
//
// goFlags adds the spellings of Go's flag package, which tend's own
// command line has always taken: a long name after one dash
// (-grace-period), a letter as a long name (--s, -e=7), "=value" for a
// yes/no option (--subreaper=false); long names then match whole, never
// by prefix.
type getopt struct {
	opts    []option
	goFlags bool
}

// read calls visit with each option and each unreadable word, in order,
// until visit returns true, and returns the index of the first word it
// did not read: "--", the first operand, or len(args).
func (g getopt) read(args []string, visit func(optItem) (stop bool)) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return i
		}
		var it optItem
		if g.isLong(a) {
			it, i = g.readLong(args, i)
			if visit(it) {
				return i + 1
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			// A byte is written as the rune of its value, as fmt's %c
			// writes it: what tend and the dumb-init mode always printed.
			it = optItem{word: "-" + string(rune(a[j])), fault: optUnknown}
			for _, o := range g.opts {
				if o.short != 0 && o.short == a[j] {
					it.opt, it.fault = o, optOK
				}
			}
			if it.fault == optOK && it.opt.arg {
				switch {
				case j+1 < len(a):
					it.val, it.hasVal = a[j+1:], true
				case i+1 < len(args):
					i++
					it.val, it.hasVal = args[i], true
				default:
					it.fault = optNeedsArg
				}
				j = len(a)
			}
			if visit(it) {
				return i + 1
			}
		}
	}
	return len(args)
}

// isLong reports whether a names a long option rather than a cluster of
// letters.
func (g getopt) isLong(a string) bool {
	if strings.HasPrefix(a, "--") || !g.goFlags {
		return strings.HasPrefix(a, "--")
	}
	name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
	_, fault := g.find(name)
	return hasVal || len(name) == 1 || fault == optOK
}

// readLong reads the long option args[i], with its argument, and returns
// the index of the last word it used.
func (g getopt) readLong(args []string, i int) (optItem, int) {
	a := args[i]
	name := strings.TrimPrefix(a, "--")
	if g.goFlags {
		name = strings.TrimLeft(a, "-")
	}
	name, val, hasVal := strings.Cut(name, "=")
	it := optItem{word: a, val: val, hasVal: hasVal}
	if it.opt, it.fault = g.find(name); it.fault != optOK {
		return it, i
	}
	switch {
	case !it.opt.arg && hasVal && !g.goFlags:
		it.fault = optNoArg
	case it.opt.arg && !hasVal && i+1 < len(args):
		i++
		it.val, it.hasVal = args[i], true
	case it.opt.arg && !hasVal:
		it.fault = optNeedsArg
	}
	return it, i
}

// find looks a long name up: whole, or else by an unambiguous prefix as
// getopt_long does; with goFlags, whole or as a letter. A scan, not a map:
// a command line names a few of some 45 options, and a map of them cost
// more than the rest of the parse.
func (g getopt) find(name string) (option, optFault) {
	found, n := option{}, 0
	for _, o := range g.opts {
		switch {
		case o.long == name, g.goFlags && len(name) == 1 && o.short != 0 && o.short == name[0]:
			return o, optOK
		case !g.goFlags && strings.HasPrefix(o.long, name):
			found, n = o, n+1
		}
	}
	switch n {
	case 0:
		return option{}, optUnknown
	case 1:
		return found, optOK
	}
	return option{}, optAmbiguous
}

// glibcMessage is glibc's message for a word getopt_long could not read
// (posix/getopt.c), as a program that uses it prints it on stderr.
func glibcMessage(prog string, it optItem) string {
	long := strings.HasPrefix(it.word, "--") && it.word != "--" // "--" alone: the letter '-' in a cluster
	switch {
	case it.fault == optUnknown && long:
		return fmt.Sprintf("%s: unrecognized option '%s'\n", prog, it.word)
	case it.fault == optUnknown:
		return fmt.Sprintf("%s: invalid option -- '%s'\n", prog, it.word[1:])
	case it.fault == optAmbiguous:
		return fmt.Sprintf("%s: option '%s' is ambiguous\n", prog, it.word)
	case it.fault == optNoArg:
		return fmt.Sprintf("%s: option '--%s' doesn't allow an argument\n", prog, it.opt.long)
	case long:
		return fmt.Sprintf("%s: option '--%s' requires an argument\n", prog, it.opt.long)
	}
	return fmt.Sprintf("%s: option requires an argument -- '%c'\n", prog, it.opt.short)
}

// expandShort rewrites tini's getopt command line into the long form that
// package flag reads, one option per word ("-sgvv" becomes "--subreaper
// --kill-group --verbose --verbose", "-se3" "--subreaper --remap-exit 3"),
// and reports which of specs it named, so that only those need to be
// applied. Long names also keep flag from refusing an option given once by
// its letter and once by its name. A word getopt cannot read is passed on
// as written, for flag to reject in its own words (the help flags, which
// are flag's own, pass that way); the rest, from "--" or the program on,
// goes as written.
func expandShort(args []string, specs []flagSpec) (argv []string, named map[string]bool) {
	opts := make([]option, len(specs))
	for i, s := range specs {
		opts[i] = option{long: s.long, arg: s.kind == kindValue || s.kind == kindList}
		if s.short != "" {
			opts[i].short = s.short[0]
		}
	}
	argv, named = make([]string, 0, len(args)+1), map[string]bool{}
	n := getopt{opts: opts, goFlags: true}.read(args, func(it optItem) bool {
		switch long := "--" + it.opt.long; {
		case it.fault == optUnknown:
			argv = append(argv, it.word)
			return false
		case it.fault == optOK && it.opt.arg:
			argv = append(argv, long, it.val)
		case it.fault == optOK && it.hasVal:
			// A yes/no or counting flag keeps its value in its word, as
			// getopt_long's --name=value: apart, it would be an operand.
			argv = append(argv, long+"="+it.val)
		default: // without its argument, for flag to say so
			argv = append(argv, long)
		}
		named[it.opt.long] = true
		return false
	})
	return append(argv, args[n:]...), named
}
