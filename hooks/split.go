package hooks

import "strings"

// SplitActions splits a hook variable (TEND_POST_START and the like). It
// holds one action, which may span lines: a shell script from a YAML
// `value: |` block, or a JSON form pretty-printed. Several actions in one variable are separated by a line
// holding only ---, as YAML separates documents; the flag repeats as well.
func SplitActions(s string) []string {
	var out, cur []string
	flush := func() {
		if a := strings.Trim(strings.Join(cur, "\n"), "\n"); strings.TrimSpace(a) != "" {
			out = append(out, a)
		}
		cur = cur[:0]
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "---" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return out
}
