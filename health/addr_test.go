package health

import (
	"strings"
	"testing"
)

// TestParseAddrChecksTheHost: the health address's host follows the rule
// of every address tend is given (target.CheckAddr), so a host no lookup
// can find stops tend at its start with a line that says so.
func TestParseAddrChecksTheHost(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:0":    "",
		":9090":          "",
		"[::1]:8080":     "",
		"localhost:8080": "",
		"nope":           `health address "nope": want HOST:PORT`,
		"h:99999":        `health address "h:99999": bad port "99999"`,
		"a!b:80":         `health address "a!b:80": bad host "a!b"`,
		"a,b:80":         `health address "a,b:80": bad host "a,b"`,
		"a b:80":         `health address "a b:80": bad host "a b"`,
	} {
		err := ParseAddr(in)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseAddr(%q) = %v, want %q", in, err, want)
		}
	}
}
