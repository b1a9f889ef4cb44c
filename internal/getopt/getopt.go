// Package getopt reads a command line against an option table as glibc's
// getopt_long does, with Go's flag spellings when asked: one reader for
// every command line tend answers to, each caller wording what it cannot
// read (Message gives glibc's words).
package getopt

import (
	"fmt"
	"strings"
)

// Option is one row of a getopt_long table.
type Option struct {
	Long  string
	Short byte // 0: none
	Arg   bool // takes an argument
}

// Fault says why Read could not read a word.
type Fault int

const (
	OK        Fault = iota
	Unknown         // not in the table
	Ambiguous       // a prefix of several long names
	NeedsArg        // takes an argument, and none is left
	NoArg           // --name=value for an option without an argument
)

// Item is one thing Read read: an option with its argument, or, when
// Fault is set, a word it could not read.
type Item struct {
	Opt    Option // unset for Unknown and Ambiguous
	Val    string
	HasVal bool // Val was given: always, for an option with an argument
	Fault  Fault
	Word   string // as written: the whole word, or "-" and the letter in a cluster
}

// Reader reads a command line against one table as glibc's getopt_long
// with a "+" optstring does: letters combine (-sg), and one that takes an
// argument takes the rest of its word or else the next (-se3, -se 3); a
// long name takes "=value" or the next word; reading stops at "--" or at
// the first operand, so the program's own flags are untouched.
//
// GoFlags adds the spellings of Go's flag package, which tend's own
// command line has always taken: a long name after one dash
// (-grace-period), a letter as a long name (--s, -e=7), "=value" for a
// yes/no option (--subreaper=false); long names then match whole, never
// by prefix.
type Reader struct {
	Opts    []Option
	GoFlags bool
}

// Read calls visit with each option and each unreadable word, in order,
// until visit returns true, and returns the index of the first word it
// did not read: "--", the first operand, or len(args).
func (g Reader) Read(args []string, visit func(Item) (stop bool)) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return i
		}
		var it Item
		if g.isLong(a) {
			it, i = g.readLong(args, i)
			if visit(it) {
				return i + 1
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			// A byte is written as the rune of its value, as fmt's %c
			// writes it: what tend's command lines always printed.
			it = Item{Word: "-" + string(rune(a[j])), Fault: Unknown}
			for _, o := range g.Opts {
				if o.Short != 0 && o.Short == a[j] {
					it.Opt, it.Fault = o, OK
				}
			}
			if it.Fault == OK && it.Opt.Arg {
				switch {
				case j+1 < len(a):
					it.Val, it.HasVal = a[j+1:], true
				case i+1 < len(args):
					i++
					it.Val, it.HasVal = args[i], true
				default:
					it.Fault = NeedsArg
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
func (g Reader) isLong(a string) bool {
	if strings.HasPrefix(a, "--") || !g.GoFlags {
		return strings.HasPrefix(a, "--")
	}
	name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
	_, fault := g.find(name)
	return hasVal || len(name) == 1 || fault == OK
}

// readLong reads the long option args[i], with its argument, and returns
// the index of the last word it used.
func (g Reader) readLong(args []string, i int) (Item, int) {
	a := args[i]
	name := strings.TrimPrefix(a, "--")
	if g.GoFlags {
		name = strings.TrimLeft(a, "-")
	}
	name, val, hasVal := strings.Cut(name, "=")
	it := Item{Word: a, Val: val, HasVal: hasVal}
	if it.Opt, it.Fault = g.find(name); it.Fault != OK {
		return it, i
	}
	switch {
	case !it.Opt.Arg && hasVal && !g.GoFlags:
		it.Fault = NoArg
	case it.Opt.Arg && !hasVal && i+1 < len(args):
		i++
		it.Val, it.HasVal = args[i], true
	case it.Opt.Arg && !hasVal:
		it.Fault = NeedsArg
	}
	return it, i
}

// find looks a long name up: whole, or else by an unambiguous prefix as
// getopt_long does; with GoFlags, whole or as a letter. A scan, not a map:
// a command line names a few of some 45 options, and a map of them cost
// more than the rest of the parse.
func (g Reader) find(name string) (Option, Fault) {
	found, n := Option{}, 0
	for _, o := range g.Opts {
		switch {
		case o.Long == name, g.GoFlags && len(name) == 1 && o.Short != 0 && o.Short == name[0]:
			return o, OK
		case !g.GoFlags && strings.HasPrefix(o.Long, name):
			found, n = o, n+1
		}
	}
	switch n {
	case 0:
		return Option{}, Unknown
	case 1:
		return found, OK
	}
	return Option{}, Ambiguous
}

// Message is glibc's message for a word getopt_long could not read
// (posix/getopt.c), as a program that uses it prints it on stderr.
func Message(prog string, it Item) string {
	long := strings.HasPrefix(it.Word, "--") && it.Word != "--" // "--" alone: the letter '-' in a cluster
	switch {
	case it.Fault == Unknown && long:
		return fmt.Sprintf("%s: unrecognized option '%s'\n", prog, it.Word)
	case it.Fault == Unknown:
		return fmt.Sprintf("%s: invalid option -- '%s'\n", prog, it.Word[1:])
	case it.Fault == Ambiguous:
		return fmt.Sprintf("%s: option '%s' is ambiguous\n", prog, it.Word)
	case it.Fault == NoArg:
		return fmt.Sprintf("%s: option '--%s' doesn't allow an argument\n", prog, it.Opt.Long)
	case long:
		return fmt.Sprintf("%s: option '--%s' requires an argument\n", prog, it.Opt.Long)
	}
	return fmt.Sprintf("%s: option requires an argument -- '%c'\n", prog, it.Opt.Short)
}
