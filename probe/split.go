package probe

import "strings"

// SplitSpecs splits a probe variable (TEND_READY_PROBE and the like): a
// spec may contain commas and spaces, so the variable holds one a line.
func SplitSpecs(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
