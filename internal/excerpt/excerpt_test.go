package excerpt

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"TERM", `"TERM"`},
		{"a\nb", `"a\nb"`},
		{"\x1b[31mred", `"\x1b[31mred"`},
		{"nul\x00vt\vff\f", `"nul\x00vt\vff\f"`},
		{"line\u2028sep", `"line\u2028sep"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{strings.Repeat("a", 62), `"` + strings.Repeat("a", 62) + `"`},
		{strings.Repeat("a", 63), `"` + strings.Repeat("a", 62) + `"…`},
		{strings.Repeat("[", 60000) + strings.Repeat("]", 60000), `"` + strings.Repeat("[", 62) + `"…`},
		{strings.Repeat("\x00", 100), `"` + strings.Repeat(`\x00`, 15) + `"…`},
		{strings.Repeat("é", 40), `"` + strings.Repeat("é", 31) + `"…`},
	}
	for _, c := range cases {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%.40q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestQuoteBounded: whatever the input, the excerpt is short, one line,
// valid UTF-8 and holds no control byte.
func TestQuoteBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("\xff", 1000), strings.Repeat("\u2028", 1000), strings.Repeat(`"\`, 1000),
		strings.Repeat("\r\n", 1000), strings.Repeat("日本", 1000),
	} {
		got := Quote(in)
		body := strings.TrimSuffix(got, "…")
		if len(body) > Max || !utf8.ValidString(got) || strings.ContainsAny(got, "\r\n\x00\x1b\u2028") {
			t.Errorf("Quote(%.20q...) = %s (%d bytes)", in, got, len(body))
		}
	}
}

// TestQuoteIsGos: what fits is exactly strconv.Quote's string, so a
// quoted value reads as Go writes it, piece by piece through the same
// escaper as Escape.
func TestQuoteIsGos(t *testing.T) {
	var all strings.Builder
	for b := 0; b < 256; b++ {
		all.WriteByte(byte(b))
	}
	in := []string{`say "hi" \ bye`, "\a\b\f\v\t", "\u00a0\u200b\u202e\ufeff\u0085", "é世界"}
	for i := 0; i < 256; i += 8 {
		in = append(in, all.String()[i:i+8])
	}
	for _, s := range in {
		if got, want := Quote(s), strconv.Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}
