package probe

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/excerpt"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes: the cut must not split a character
	cases := []struct {
		out  string
		more int64 // bytes written beyond out
		want string
	}{
		{"", 0, ""},
		{" \n\t", 0, ""},
		{"oops\n", 0, `"oops"`},
		{"\x1b[31mred\x00\v\f\r\n\u2028\u2029end", 0, `"\x1b[31mred\x00\v\f\r\n\u2028\u2029end"`},
		{"\xff\xfe", 0, `"\xff\xfe"`},
		{`say "hi" \ bye`, 0, `"say \"hi\" \\ bye"`},
		{"head", 100000, `"head"… (100004 bytes)`},
		{long, 0, excerpt.Quote(long) + " (200 bytes)"},
	}
	for _, c := range cases {
		o := hooks.Output{Head: []byte(c.out), Total: int64(len(c.out)) + c.more}
		if got := outputExcerpt(o); got != c.want {
			t.Errorf("outputExcerpt(%q) = %s, want %s", c.out, got, c.want)
		}
		if strings.ContainsAny(outputExcerpt(o), "\x00\x1b\n\r\v\f\u2028\u2029") {
			t.Errorf("outputExcerpt(%q) holds a raw control character", c.out)
		}
	}
}

// TestExecFailureQuotesOutput: an exec probe's failure quotes what it
// wrote, escaped; its output never reaches tend's stdout.
func TestExecFailureQuotesOutput(t *testing.T) {
	r := reaperLoop(t)
	s, _ := ParseSpec(`printf 'db down\033[0m\n'; exit 2`)
	err := s.Attempt(context.Background(), Deps{Starter: r, Env: os.Environ()}, 10*time.Second)
	want := `printf 'db down\033[0m\n'; exit 2: exit code 2; output "db down\x1b[0m"`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
