// Package excerpt is tend's one escaper for one-line text: Escape for text
// tend prints as it is (a log line, a reason), Quote for a value it quotes.
//
// tend reports a bad flag, variable, probe, hook or peer answer in one log
// line, and those values can be anything: a 120 KB JSON value, escape codes,
// NUL. Quoting the whole value made one error line echo 120 KB twice; quoting
// it raw let a value paint the terminal or forge a second log line. Every
// error that quotes what a user or a peer wrote goes through Quote, and
// every line tend writes goes through Escape.
package excerpt

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
	b, all := appendPieces(append(make([]byte, 0, Max+len("\"…")), '"'), s, Max-1, quoted)
	b = append(b, '"')
	if !all {
		b = append(b, "…"...)
	}
	return string(b)
}
