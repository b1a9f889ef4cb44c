package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/getopt"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/probe"
)

// readValues parses the command line (args without the program name) into
// values that also fall back to the environment.
//
// The flags are urfave/cli's, applied to a plain flag.FlagSet: cli's own
// App.Run looks every flag up through a regexp, which cost about half a
// millisecond of tend's start-up. Only the flags on the command line are
// applied: Apply builds each flag's names through a regexp too, and
// applying all of them cost about 0.1 ms and 80 KB on every start, for
// flags that are mostly read from the environment, or not at all. A flag
// that is not applied is never looked up: values reads the environment
// for it.
func readValues(args []string, env LookupEnv, specs []flagSpec) (values, error) {
	set := flag.NewFlagSet("tend", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	set.Bool("help", false, "")
	set.Bool("h", false, "")
	argv, named := expandShort(args, specs)
	for _, s := range specs {
		if !named[s.long] {
			continue
		}
		if err := cliFlag(s).Apply(set); err != nil {
			return values{}, usagef("%v", err)
		}
	}
	if err := set.Parse(argv); err != nil {
		return values{}, usagef("%s", longDashes(err.Error()))
	}
	given := map[string]bool{}
	set.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return values{set: set, given: given, env: env, specs: specs}, nil
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
	opts := make([]getopt.Option, len(specs))
	for i, s := range specs {
		opts[i] = getopt.Option{Long: s.long, Arg: s.kind == kindValue || s.kind == kindList}
		if s.short != "" {
			opts[i].Short = s.short[0]
		}
	}
	argv, named = make([]string, 0, len(args)+1), map[string]bool{}
	n := getopt.Reader{Opts: opts, GoFlags: true}.Read(args, func(it getopt.Item) bool {
		switch long := "--" + it.Opt.Long; {
		case it.Fault == getopt.Unknown:
			argv = append(argv, it.Word)
			return false
		case it.Fault == getopt.OK && it.Opt.Arg:
			argv = append(argv, long, it.Val)
		case it.Fault == getopt.OK && it.HasVal:
			// A yes/no or counting flag keeps its value in its word, as
			// getopt_long's --name=value: apart, it would be an operand.
			argv = append(argv, long+"="+it.Val)
		default: // without its argument, for flag to say so
			argv = append(argv, long)
		}
		named[it.Opt.Long] = true
		return false
	})
	return append(argv, args[n:]...), named
}

// usagef is a bad flag, value or variable: one line, every control byte
// escaped (excerpt.Escape), exit 1.
func usagef(format string, args ...any) error {
	return fmt.Errorf("%s", excerpt.Escape(fmt.Sprintf(format, args...)))
}

// listValue collects a repeatable flag's values in order.
type listValue []string

func (l *listValue) String() string     { return strings.Join(*l, ", ") }
func (l *listValue) Set(s string) error { *l = append(*l, s); return nil }

// values reads one flag from the command line, or else from its variables.
type values struct {
	set   *flag.FlagSet
	given map[string]bool // flags present on the command line, by long name
	env   LookupEnv
	specs []flagSpec
}

func (v values) spec(long string) flagSpec {
	for _, s := range v.specs {
		if s.long == long {
			return s
		}
	}
	return flagSpec{} // unreachable: every caller names a spec above
}

// boolean reads a yes/no flag. Its TEND_* variable takes true/false/1/0
// (strconv.ParseBool's forms); anything else is an error, never a silent
// false. tini's variables mean yes merely by being set, even empty.
func (v values) boolean(long string) (bool, error) {
	if v.given[long] {
		return v.set.Lookup(long).Value.String() == "true", nil
	}
	s := v.spec(long)
	for _, name := range s.env {
		val, ok := v.env(name)
		if !ok {
			continue
		}
		if s.presence[name] {
			return true, nil
		}
		b, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return false, usagef("invalid %s value %s: want true, false, 1 or 0", name, excerpt.Quote(val))
		}
		return b, nil
	}
	return false, nil
}

func (v values) str(long string) (string, bool) {
	if v.given[long] {
		return v.set.Lookup(long).Value.String(), true
	}
	for _, name := range v.spec(long).env {
		if val, ok := v.env(name); ok && val != "" {
			return val, true
		}
	}
	return "", false
}

func (v values) list(long string) []string {
	if v.given[long] {
		if l, ok := v.set.Lookup(long).Value.(*listValue); ok {
			return *l
		}
	}
	s := v.spec(long)
	for _, name := range s.env {
		val, ok := v.env(name)
		if !ok || strings.TrimSpace(val) == "" {
			continue
		}
		if s.splitEnv == nil {
			return []string{val}
		}
		return s.splitEnv(val)
	}
	return nil
}

// splitFields splits a list variable on commas and blanks.
func splitFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// A hook variable holds actions, a probe variable specs, one a line: the
// flag table's splitters (splitEnv) are their packages'.
var splitActions, splitLines = hooks.SplitActions, probe.SplitSpecs

// verbosity is 1 (warnings) plus one per -v; without -v, TEND_VERBOSITY or
// TINI_VERBOSITY give the level as a number.
func (v values) verbosity() (int, error) {
	if v.given["verbose"] {
		if c, ok := v.set.Lookup("verbose").Value.(interface{ Count() int }); ok {
			return logger.LevelWarn + c.Count(), nil
		}
	}
	for _, name := range v.spec("verbose").env {
		val, ok := v.env(name)
		if !ok || strings.TrimSpace(val) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n < 0 {
			return 0, usagef("invalid %s value %s: want a number >= 0", name, excerpt.Quote(val))
		}
		return n, nil
	}
	return logger.LevelWarn, nil
}

// duration sets *dst to a positive duration flag, if it is given.
func (v values) duration(long string, dst *time.Duration) error {
	s, ok := v.str(long)
	if !ok {
		return nil
	}
	d, err := parseDuration(s)
	if err != nil {
		return usagef("invalid --%s value %s: %v", long, excerpt.Quote(s), err)
	}
	*dst = d
	return nil
}

// count sets *dst to a positive whole number, if it is given.
func (v values) count(long string, dst *int) error {
	s, ok := v.str(long)
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return usagef("invalid --%s value %s: want a whole number >= 1", long, excerpt.Quote(s))
	}
	*dst = n
	return nil
}

// minPeriod is the shortest probe period or timeout tend accepts:
// Kubernetes' own minimum is a second; shorter is fine for tests, but not
// so short that probes run in a tight loop.
const minPeriod = 10 * time.Millisecond

// period sets *dst to a probe duration of at least minPeriod, if given.
func (v values) period(long string, dst *time.Duration) error {
	if err := v.duration(long, dst); err != nil {
		return err
	}
	if *dst < minPeriod {
		s, _ := v.str(long)
		return usagef("invalid --%s value %s: must be at least %s", long, excerpt.Quote(s), minPeriod)
	}
	return nil
}

// parseDuration reads a Go duration that must be positive.
func parseDuration(s string) (time.Duration, error) {
	d, err := readDuration(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be greater than zero")
	}
	return d, nil
}

// errNotDuration is readDuration's answer to anything that is neither a
// duration nor a bare number.
var errNotDuration = errors.New("not a duration (want e.g. 500ms, 10s, 2m)")

// maxEcho is the longest bare number a message repeats whole: the rest of
// a message quotes only an excerpt of what it was given.
const maxEcho = 20

// readDuration reads a Go duration, of any sign. A bare number ("10") is
// the likeliest mistake, so its message says what to add.
func readDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	switch {
	case err == nil:
		return d, nil
	case bareNumber(s) && len(s) <= maxEcho:
		return 0, fmt.Errorf("a bare number is not a duration: add a unit, e.g. %ss", s)
	case bareNumber(s):
		return 0, errors.New("a bare number is not a duration: add a unit, e.g. 10s")
	}
	return 0, errNotDuration
}

// bareNumber reports whether s is digits with at most one '.', such as "10"
// or "1.5": a duration without its unit.
func bareNumber(s string) bool {
	digits, dots := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

// longDashes writes a long flag's name in package flag's errors with the
// two dashes tend's help and README use ("flag needs an argument:
// --user"), and a one-letter name with one. The pattern is compiled here,
// on the error path, not at package initialisation: a package-level
// regexp would be compiled on every start of tend for a message most
// starts never print.
func longDashes(msg string) string {
	flagName := regexp.MustCompile(`(^|[\s:])-([A-Za-z0-9][A-Za-z0-9-]+)`) // a flag's name as package flag writes it: one dash
	return flagName.ReplaceAllString(msg, "$1--$2")
}
