package excerpt

import (
	"fmt"
	"unicode/utf8"
)

// Escape makes s safe to print on one line: every byte that a terminal
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
// same as an escaped ESC); it is meant to be harmless to print.
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
	for i := 0; i < len(s); {
		c := s[i]
		var piece string
		size := 1
		switch {
		case c == '\n':
			piece = `\n`
		case c == '\r':
			piece = `\r`
		case c == '\t':
			piece = `\t`
		case c < 0x20 || c == 0x7f:
			piece = fmt.Sprintf(`\x%02x`, c)
		case c < utf8.RuneSelf:
			piece = s[i : i+1]
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			size = n
			switch {
			case r == utf8.RuneError && n == 1:
				piece = fmt.Sprintf(`\x%02x`, c)
			case r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029:
				piece = fmt.Sprintf(`\u%04x`, r)
			default:
				piece = s[i : i+n]
			}
		}
		if max >= 0 && len(dst)+len(piece) > max {
			return dst, false
		}
		dst = append(dst, piece...)
		i += size
	}
	return dst, true
}
