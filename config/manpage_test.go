package config

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tend-init/tend/plan"
)

// manpage_test.go renders tend(1), the man page that the .deb, .rpm and
// .apk install. It writes nothing of its own about flags: the name,
// synopsis and each flag's name column come from printHelp's output, and
// each flag's text, default and variables from flagSpecs, so the page and
// -h cannot disagree. TestManPage (man_test.go) checks that every flag and
// variable is on the page and writes the file for `make man`. It is a test
// file because only that test uses it: tend itself never renders the page.

// manHomepage is where the page sends readers for the full guide.
const manHomepage = "https://github.com/tend-init/tend"

// helpText is printHelp's output split into what the page reuses.
type helpText struct {
	name  string      // "tend - a minimal init ..."
	usage []string    // the USAGE lines
	rows  [][2]string // GLOBAL OPTIONS: name column, description
}

// parseHelp splits printHelp's output. An error means printHelp's layout
// changed; the test fails on it, rather than the page silently losing a part.
func parseHelp(specs []flagSpec) (helpText, error) {
	var b bytes.Buffer
	if err := printHelp(specs, &b); err != nil {
		return helpText{}, err
	}
	var h helpText
	section := ""
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			section = line
			continue
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		switch section {
		case "NAME:":
			h.name = text
		case "USAGE:":
			h.usage = append(h.usage, text)
		case "GLOBAL OPTIONS:":
			// printHelp pads the name column with spaces; flag names and
			// placeholders never hold two in a row.
			name, desc, ok := strings.Cut(text, "  ")
			if !ok {
				return helpText{}, fmt.Errorf("help row %q has no description", text)
			}
			h.rows = append(h.rows, [2]string{name, strings.TrimSpace(desc)})
		}
	}
	if h.name == "" || len(h.usage) == 0 || len(h.rows) == 0 {
		return helpText{}, fmt.Errorf("printHelp's output lacks NAME, USAGE or GLOBAL OPTIONS")
	}
	return h, nil
}

// writeManPage writes tend(1) in roff with the man macros. version and
// date (YYYY-MM-DD) go in the page's header line.
func writeManPage(w io.Writer, specs []flagSpec, version, date string) error {
	// Unescaped, so that mandoc and man read it as a date.
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("man page date: %v", err)
	}
	h, err := parseHelp(specs)
	if err != nil {
		return err
	}
	bySpec := map[string]flagSpec{}
	for _, s := range specs {
		bySpec["--"+s.long] = s
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p(`.\" tend(1), generated from tend's flag table by make man; do not edit.`)
	p(`.TH TEND 1 "%s" "tend %s" "User Commands"`, date, roff(version))
	p(".SH NAME")
	p("%s", roff(h.name))
	p(".SH SYNOPSIS")
	p(".nf")
	for _, u := range h.usage {
		cmd, rest, _ := strings.Cut(u, " ")
		p(`\fB%s\fR %s`, roff(cmd), roff(rest))
	}
	p(".fi")
	p(".SH DESCRIPTION")
	p("%s", roff("tend runs PROGRAM as its child, reaps every zombie process, forwards signals "+
		"to PROGRAM, runs Kubernetes-style lifecycle hooks and probes, and exits with PROGRAM's "+
		"exit code. It is meant to be a container's PID 1, in place of tini or dumb-init. "+
		"Without PROGRAM, it reaps and waits for TERM (a pause container)."))
	p(".PP")
	p("%s", roff("Short flags combine as with getopt (-sg, -se 3). Option parsing stops at -- or at "+
		"the first non-option, so flags after PROGRAM are PROGRAM's. "+
		"A flag wins over its variables. A DUR is a Go duration with a unit (500ms, 10s, 2m): "+
		"a bare number is an error."))
	p(".SH OPTIONS")
	for _, row := range h.rows {
		p(".TP")
		p("%s", manFlagName(row[0]))
		s, ok := bySpec[strings.TrimSuffix(strings.Fields(row[0])[0], ",")]
		if !ok { // a row printHelp adds by itself, such as --help
			p("%s", roff(row[1]))
			continue
		}
		usage, err := helpUsage(row[1], s)
		if err != nil {
			return err
		}
		p("%s", roff(usage))
		if s.def != "" {
			p(".br")
			p(`Default: %s`, roff(s.def))
		}
		if len(s.env) > 0 {
			p(".br")
			p(`Variables: %s`, manVars(s.env))
		}
	}
	p(".SH ENVIRONMENT")
	p("%s", roff("Each variable stands for a flag when the flag is not given; "+
		"of a flag's variables, the first that is set wins."))
	for _, s := range specs {
		for _, name := range s.env {
			p(".TP")
			p(`\fB%s\fR`, roff(name))
			p(`As \fB\-\-%s\fR; %s`, roff(s.long), roff(envForm(s, name)))
		}
	}
	p(".SH EXIT STATUS")
	for _, e := range exitStatuses() {
		p(".TP")
		p("%s", roff(e[0]))
		p("%s", roff(e[1]))
	}
	p(".SH SEE ALSO")
	p("%s", roff("The full guide, with the Dockerfile set-up, the tini migration table, hooks, "+
		"probes and the health endpoint: "+manHomepage))
	_, err = io.WriteString(w, b.String())
	return err
}

// helpUsage is a flag's description as -h prints it (placeholder quotes
// gone), less the variables and default that the page lists on lines of
// their own.
func helpUsage(desc string, s flagSpec) (string, error) {
	for _, suffix := range []string{" (default: " + s.def + ")", " (env " + strings.Join(s.env, ", ") + ")"} {
		if suffix == " (default: )" || suffix == " (env )" {
			continue
		}
		var ok bool
		if desc, ok = strings.CutSuffix(desc, suffix); !ok {
			return "", fmt.Errorf("help row for --%s does not end in %q", s.long, suffix)
		}
	}
	return desc, nil
}

// manFlagName renders a help name column ("--remap-exit N, -e N") with the
// flags in bold and the placeholders in italics.
func manFlagName(col string) string {
	var alts []string
	for _, alt := range strings.Split(col, ", ") {
		flagName, placeholder, _ := strings.Cut(alt, " ")
		s := `\fB` + roff(flagName) + `\fR`
		if placeholder != "" {
			s += ` \fI` + roff(placeholder) + `\fR`
		}
		alts = append(alts, s)
	}
	return strings.Join(alts, ", ")
}

func manVars(env []string) string {
	var out []string
	for _, e := range env {
		out = append(out, `\fB`+roff(e)+`\fR`)
	}
	return strings.Join(out, ", ")
}

// envForm says what a variable's value means, from the flag's kind and
// the way values.go reads it.
func envForm(s flagSpec, name string) string {
	switch {
	case s.presence[name]:
		return "being set, even to the empty string, turns it on, as in tini."
	case s.kind == kindBool:
		return "takes true, false, 1 or 0."
	case s.kind == kindCount:
		return "takes a number: 0 errors, 1 warnings, 2 info, 3 debug."
	case s.kind == kindList && s.splitEnv != nil && len(s.splitEnv("a b")) == 2:
		return "takes several values, separated by commas or blanks."
	case s.kind == kindList && s.splitEnv != nil:
		return "takes several values, one per line."
	}
	return "an empty value counts as unset."
}

// exitStatuses are tend's exit codes, as the README's table states them.
func exitStatuses() [][2]string {
	return [][2]string{
		{"the app's code", "The app exited."},
		{"128+N", "The app died of signal N (137: killed at the end of the grace period)."},
		{"0", "The app's code was listed with -e."},
		{"126", "The program exists but cannot be executed."},
		{"127", "The program was not found."},
		{"1", "A bad flag, value or variable, or a set-up step failed (one line on stderr); " +
			"for --check, the server did not answer 200-399."},
		{fmt.Sprint(plan.ExitStartHookFailed), "A post-start hook failed (never remapped by -e)."},
		{fmt.Sprint(plan.ExitLivenessFailed), "The liveness probe failed (never remapped by -e)."},
	}
}

// roff escapes text for a roff text line: backslashes, hyphens (so that
// flags render as minus signs and can be copied), and a leading dot or
// quote, which would start a request.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
