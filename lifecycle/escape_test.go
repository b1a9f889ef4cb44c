package lifecycle

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tend-init/tend/plan"
)

// TestEscapeText: every control byte, C1 control, line or paragraph
// separator and invalid byte comes out as a visible escape; everything
// else, including backslashes and other UTF-8, is kept byte for byte.
func TestEscapeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain text: 30s, pid 7", "plain text: 30s, pid 7"},
		{`a\b C:\x`, `a\b C:\x`},
		{"héllo 世界 ✓ \ufffd", "héllo 世界 ✓ \ufffd"},
		{"a\nb\r\nc\td", `a\nb\r\nc\td`},
		{"nul\x00end", `nul\x00end`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bel\a bs\b vt\v ff\f", `bel\x07 bs\x08 vt\x0b ff\x0c`},
		{"\x01\x1f\x7f", `\x01\x1f\x7f`},
		{"nel\u0085 csi\u009b[2J pad\u0080", `nel\u0085 csi\u009b[2J pad\u0080`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"\u00a0 nbsp stays", "\u00a0 nbsp stays"},
		{"bad\xff\xfe utf8 \xc3", `bad\xff\xfe utf8 \xc3`},
		{"\xe2\x80", `\xe2\x80`}, // a cut-off U+2028
		{"\xc2\x9b", `\u009b`},
	} {
		got := escapeText(c.in)
		if got != c.want {
			t.Errorf("escapeText(%q) = %q, want %q", c.in, got, c.want)
		}
		if !utf8.ValidString(got) || needsEscapeAfter(got) {
			t.Errorf("escapeText(%q) = %q still holds something to escape", c.in, got)
		}
		if again := escapeText(got); again != got {
			t.Errorf("escaping twice changed %q to %q", got, again)
		}
	}
}

// needsEscapeAfter reports a byte below 0x20, DEL, a C1 control or a line
// separator left in s.
func needsEscapeAfter(s string) bool {
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 {
			return true
		}
	}
	return false
}

// TestAppendEscapedMax: a cap never cuts an escape or a character in two.
func TestAppendEscapedMax(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
		all  bool
	}{
		{"abcdef", 4, "abcd", false},
		{"abc", 3, "abc", true},
		{"ab\x1bcd", 4, "ab", false},     // \x1b needs 4 bytes
		{"ab\x1bcd", 6, `ab\x1b`, false}, // ...and then c does not fit
		{"a世界", 3, "a", false},           // 世 is 3 bytes
		{"a世界", 4, "a世", false},
		{"", 0, "", true},
	} {
		got, all := appendEscaped(nil, c.in, c.max)
		if string(got) != c.want || all != c.all {
			t.Errorf("appendEscaped(%q, %d) = %q %v, want %q %v", c.in, c.max, got, all, c.want, c.all)
		}
	}
}

// TestTerminationText: tend's reason is escaped and capped at the
// kubelet's 4,096 bytes, with "..." at a cut.
func TestTerminationText(t *testing.T) {
	if got := string(terminationText("post-start failed: exit 3: exit code 3")); got != "post-start failed: exit 3: exit code 3" {
		t.Fatalf("plain reason changed: %q", got)
	}
	if got := string(terminationText("probe failed: status 500: \x1b[2J\x00\v\u2028")); got != `probe failed: status 500: \x1b[2J\x00\x0b\u2028` {
		t.Fatalf("not escaped: %q", got)
	}
	exact := strings.Repeat("a", maxTerminationMessage)
	if got := terminationText(exact); string(got) != exact {
		t.Fatalf("a reason of exactly 4096 bytes was cut to %d", len(got))
	}
	for _, long := range []string{strings.Repeat("x", 10000), strings.Repeat("\x1b", 5000), strings.Repeat("世", 3000)} {
		got := terminationText(long)
		if len(got) > maxTerminationMessage || len(got) < maxTerminationMessage-8 || !bytes.HasSuffix(got, []byte("...")) || !utf8.Valid(got) {
			t.Fatalf("cut of a %d-byte reason: %d bytes, ends %q", len(long), len(got), got[max(0, len(got)-12):])
		}
	}
}

// TestTextLogEscapes: a text line quotes a stranger's bytes escaped, and
// stays one line; the prefix and an ordinary message are unchanged.
func TestTextLogEscapes(t *testing.T) {
	var b bytes.Buffer
	l := NewLogger(&b, plan.LevelWarn, plan.LogText)
	l.Warnf("liveness probe failed: status 500: %s", "\x1b[31mred\x1b[0m\x00\v\f\u2028\x7f\u009b\xff\nfake [tend 1] ERROR: forged")
	want := fmt.Sprintf("[tend %d] WARN: liveness probe failed: status 500: "+
		`\x1b[31mred\x1b[0m\x00\x0b\x0c\u2028\x7f\u009b\xff\nfake [tend 1] ERROR: forged`+"\n", os.Getpid())
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}
