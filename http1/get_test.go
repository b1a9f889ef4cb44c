package http1

import "testing"

// TestTargetQueryIsEscaped: a query is sent as a valid request target,
// whatever bytes it was written with (FuzzRequestHeaders found "/? ").
func TestTargetQueryIsEscaped(t *testing.T) {
	for raw, want := range map[string]string{
		"http://h/?a=1&b=2":  "/?a=1&b=2",
		"http://h/? ":        "/?%20",
		"http://h/x?a b=c d": "/x?a%20b=c%20d",
		"http://h/?é":        "/?%C3%A9",
		"http://h/a b?q":     "/a%20b?q",
	} {
		u, _, err := parseTarget(raw)
		if err != nil || u.RequestURI() != want {
			t.Errorf("%q: %v %v, want %q", raw, u, err, want)
		}
	}
}
