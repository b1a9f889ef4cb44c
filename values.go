package main

import (
	"flag"
	"strconv"
	"strings"
	"time"
)

// listValue collects a repeatable flag's values in order.
type listValue []string

func (l *listValue) String() string     { return strings.Join(*l, ", ") }
func (l *listValue) Set(s string) error { *l = append(*l, s); return nil }

// values reads one flag from the command line, or else from its variables.
type values struct {
	set   *flag.FlagSet
	given map[string]bool // flags present on the command line, by long name
	env   lookupEnv
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

func (v values) boolean(long string) bool {
	if v.given[long] {
		return v.set.Lookup(long).Value.String() == "true"
	}
	s := v.spec(long)
	for _, name := range s.env {
		val, ok := v.env(name)
		if !ok {
			continue
		}
		if s.presence[name] {
			return true
		}
		b, err := strconv.ParseBool(strings.TrimSpace(val))
		return err == nil && b
	}
	return false
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

// verbosity is 1 (warnings) plus one per -v; without -v, TEND_VERBOSITY or
// TINI_VERBOSITY give the level as a number.
func (v values) verbosity() (int, error) {
	if v.given["verbose"] {
		if c, ok := v.set.Lookup("verbose").Value.(interface{ Count() int }); ok {
			return levelWarn + c.Count(), nil
		}
	}
	for _, name := range v.spec("verbose").env {
		val, ok := v.env(name)
		if !ok || strings.TrimSpace(val) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n < 0 {
			return 0, usagef("invalid %s value %q: want a number >= 0", name, val)
		}
		return n, nil
	}
	return levelWarn, nil
}

// duration reads a positive duration flag, or def when it is not given.
func (v values) duration(long string, def time.Duration) (time.Duration, error) {
	s, ok := v.str(long)
	if !ok {
		return def, nil
	}
	d, err := parseDuration(s)
	if err != nil {
		return 0, usagef("invalid --%s value %q: %v", long, s, err)
	}
	return d, nil
}

// count reads a positive whole number, or def when it is not given.
func (v values) count(long string, def int) (int, error) {
	s, ok := v.str(long)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, usagef("invalid --%s value %q: want a whole number >= 1", long, s)
	}
	return n, nil
}
