// Package excerpt quotes user input in an error message.
//
// tend reports a bad flag, variable, probe, hook or peer answer in one log
// line, and those values can be anything: a 120 KB JSON value, escape codes,
// NUL. Quoting the whole value made one error line echo 120 KB twice; quoting
// it raw let a value paint the terminal or forge a second log line. Every
// error that quotes what a user or a peer wrote goes through Quote.
package excerpt

import (
	"strconv"
	"unicode/utf8"
)

// Max bounds the quoted form, quotes and escapes included, not counting
// the "…" that marks a cut: a stray byte is written as four (\x00), so a
// bound on input bytes alone let 64 bytes of NUL become 256 (FuzzResponseHead
// found the same in a status line).
const Max = 64

// Quote returns s as a Go double-quoted string, every control byte, invalid
// UTF-8 byte and non-printing rune (U+2028, ESC, NUL, ...) escaped, cut at
// a character boundary so that the quoted form is at most Max bytes, with
// "…" after the closing quote when s was cut.
func Quote(s string) string {
	q := strconv.Quote(s)
	if len(q) <= Max {
		return q
	}
	n, size := 0, 2 // bytes of s kept, and the quoted size so far
	for n < len(s) {
		_, w := utf8.DecodeRuneInString(s[n:])
		// Quoting one character alone costs what it costs in the
		// whole: escapes do not depend on their neighbours.
		c := len(strconv.Quote(s[n:n+w])) - 2
		if size+c > Max {
			break
		}
		size += c
		n += w
	}
	return strconv.Quote(s[:n]) + "…"
}
