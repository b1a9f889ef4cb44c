package config

import "strings"

// expandShort rewrites getopt-style options into the one-flag-per-word,
// long-name form that Go's flag package and cli understand: "-sgvv" becomes
// "--subreaper --kill-group --verbose --verbose", "-se3" becomes
// "--subreaper --remap-exit 3". Long names also keep cli from refusing a
// repeated flag given once by its short and once by its long name. It stops
// at "--" or at the first non-option, so the app's arguments are untouched.
func expandShort(args []string, specs []flagSpec) []string {
	out, _ := expandShortNames(args, specs)
	return out
}

// expandShortNames is expandShort that also reports the long names of the
// known flags it wrote, so that only those need to be defined.
func expandShortNames(args []string, specs []flagSpec) (out []string, named map[string]bool) {
	named = map[string]bool{}
	// A scan, not a map: a command line names a few of some 45 flags,
	// and a map of them cost more than the rest of the parse.
	byName := func(name string) (flagSpec, bool) {
		for i := range specs {
			if specs[i].long == name || specs[i].short == name && name != "" {
				return specs[i], true
			}
		}
		return flagSpec{}, false
	}
	takesValue := func(s flagSpec) bool { return s.kind == kindValue || s.kind == kindList }
	out = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...), named
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		s, known := byName(name)
		if strings.HasPrefix(a, "--") || hasVal || len(name) == 1 || known {
			if !known {
				out = append(out, a) // cli reports it
				continue
			}
			named[s.long] = true
			switch {
			case hasVal && !takesValue(s):
				// A yes/no or counting flag keeps its value in the same
				// word, as getopt_long's --name=value: split off, the
				// value would be taken for the program.
				out = append(out, "--"+s.long+"="+val)
			case hasVal:
				out = append(out, "--"+s.long, val)
			case takesValue(s) && i+1 < len(args):
				i++
				out = append(out, "--"+s.long, args[i])
			default:
				out = append(out, "--"+s.long)
			}
			continue
		}
		// A cluster of short flags; a valued one takes the rest of the
		// word, or else the next word.
		for j := 0; j < len(name); j++ {
			s, ok := byName(string(name[j]))
			if !ok {
				out = append(out, "-"+string(name[j])) // cli reports it
				continue
			}
			named[s.long] = true
			out = append(out, "--"+s.long)
			if !takesValue(s) {
				continue
			}
			if rest := name[j+1:]; rest != "" {
				out = append(out, rest)
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			break
		}
	}
	return out, named
}
