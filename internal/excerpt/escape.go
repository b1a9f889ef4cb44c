package excerpt

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Escape makes s safe to print on one line, unquoted: every byte that a terminal
// or a log reader could act on is written as a visible escape, so text that
// tend quotes from elsewhere (a probe peer's body, a hook's error, a flag's
// value) can neither colour, move or clear the screen, nor end the line and
// forge another. Escaped, in Go's notation:
//   - line breaks and tab as \n \r \t;
//   - the other C0 controls (NUL, BEL, BS, VT, FF, ESC, ...) and DEL as \xNN;
//   - the C1 controls U+0080-U+009F (a terminal may read U+009B as CSI) and
//     the line and paragraph separators U+2028 and U+2029 as \uNNNN;
//   - each byte of invalid UTF-8 as \xNN.
//
// Everything else, including a backslash and any other valid UTF-8, is
// kept byte for byte, so ordinary text reads exactly as before. The result
// is not meant to be unescaped (a literal `\x1b` in the input looks the
// same as an escaped ESC); it is meant to be harmless to print. It is
// what tend's text log, its termination message, its usage errors, a
// probe's error and the health endpoint's reasons show (README, "Logs").
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	out, _ := AppendEscaped(make([]byte, 0, len(s)+16), s, -1)
	return string(out)
}

// needsEscape is the fast path: most lines are plain ASCII.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return true
		}
	}
	return false
}

// AppendEscaped appends s, escaped as Escape does, to dst. With max >= 0
// it stops before the piece (a character or a whole escape) that would make
// dst longer than max, and reports whether all of s fit; no escape and no
// UTF-8 sequence is ever cut in two.
func AppendEscaped(dst []byte, s string, max int) ([]byte, bool) {
	return appendPieces(dst, s, max, bare)
}

// form is how a piece is escaped: bare (Escape's) or quoted (Go's
// double-quoted string, Quote's).
type form int

const (
	bare form = iota
	quoted
)

// appendPieces appends s to dst one piece at a time, each piece a
// character as it is or its escape, stopping as AppendEscaped says.
func appendPieces(dst []byte, s string, max int, f form) ([]byte, bool) {
	for i := 0; i < len(s); {
		p, size := piece(s, i, f)
		if max >= 0 && len(dst)+len(p) > max {
			return dst, false
		}
		dst = append(dst, p...)
		i += size
	}
	return dst, true
}

// piece is the character at s[i], escaped in the given form, and its size
// in s. An escape depends on its character alone, never on its neighbours,
// so a cut between pieces is a cut of the whole.
func piece(s string, i int, f form) (string, int) {
	c := s[i]
	if f == quoted {
		// Go's spelling, strconv.Quote's: \a \v for the named
		// controls, \" and \\, and \u for every rune that is not
		// printable.
		_, n := utf8.DecodeRuneInString(s[i:])
		q := strconv.Quote(s[i : i+n])
		return q[1 : len(q)-1], n
	}
	switch {
	case c == '\n':
		return `\n`, 1
	case c == '\r':
		return `\r`, 1
	case c == '\t':
		return `\t`, 1
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf(`\x%02x`, c), 1
	case c < utf8.RuneSelf:
		return s[i : i+1], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n == 1:
		return fmt.Sprintf(`\x%02x`, c), 1
	case r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029:
		return fmt.Sprintf(`\u%04x`, r), n
	}
	return s[i : i+n], n
}
