package hooks

import (
	"strings"
	"testing"
)

// TestParseActionStrict: a LifecycleHandler is decoded as the API server
// decodes it with strict field validation (sigs.k8s.io/json): keys match
// case-sensitively, and a key given twice is an error, at any depth.
func TestParseActionStrict(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"EXEC":{"command":["/bin/x"]}}`, `unknown field "EXEC"`},
		{`{"Exec":{"command":["/bin/x"]}}`, `unknown field "Exec"`},
		{`{"exec":{"Command":["/bin/x"]}}`, `unknown field "exec.Command"`},
		{`{"httpGet":{"Port":80}}`, `unknown field "httpGet.Port"`},
		{`{"sleep":{"SECONDS":1}}`, `unknown field "sleep.SECONDS"`},
		{`{"httpGet":{"port":80,"httpHeaders":[{"Name":"X","value":"y"}]}}`, `unknown field "httpGet.httpHeaders[0].Name"`},
		{`{"exec":{"command":["/bin/x"]},"exec":{"command":["/bin/y"]}}`, `duplicate field "exec"`},
		{`{"sleep":{"seconds":1,"seconds":600}}`, `duplicate field "sleep.seconds"`},
		{`{"httpGet":{"port":80,"port":81}}`, `duplicate field "httpGet.port"`},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"A","value":"1"},{"name":"B","name":"C","value":"2"}]}}`, `duplicate field "httpGet.httpHeaders[1].name"`},
	} {
		a, err := ParseAction(c.in)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseAction(%s) = %v, %v; want an error containing %s", c.in, a, err, c.err)
		}
	}
	// Exact keys, null for an absent handler, and the same header name
	// twice (a list, not an object) all still pass.
	for _, in := range []string{
		`{"exec":{"command":["/bin/x"]},"httpGet":null}`,
		`{"httpGet":{"port":80,"httpHeaders":[{"name":"X","value":"1"},{"name":"X","value":"2"}]}}`,
		` {"sleep" : {"seconds" : 0}} `,
	} {
		if _, err := ParseAction(in); err != nil {
			t.Errorf("ParseAction(%s): %v", in, err)
		}
	}
}

// TestParseActionValidatesHTTP: a host, port or header that could only fail
// every attempt (or probe something else than written) is an error when
// the flags are read. Names follow Kubernetes' IsHTTPHeaderName; a value
// may not hold a control byte but a tab, as net/http requires.
func TestParseActionValidatesHTTP(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"httpGet":{"host":"localhost/x?","port":8080}}`, "host"},
		{`{"httpGet":{"host":"a b","port":80}}`, "host"},
		{`{"httpGet":{"host":"user@h","port":80}}`, "host"},
		{`{"httpGet":{"host":"h#x","port":80}}`, "host"},
		{`{"httpGet":{"host":"h\u0000","port":80}}`, "host"},
		{`{"httpGet":{"host":"[::1]","port":80}}`, "host"},
		{`{"httpGet":{"host":"h:81","port":80}}`, "host"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X Y","value":"1"}]}}`, "header name"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X:Y","value":"1"}]}}`, "header name"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X_Y","value":"1"}]}}`, "header name"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X","value":"a\r\nInjected: 1"}]}}`, "control"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X","value":"a\u0000"}]}}`, "control"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X","value":"\u001b[31m"}]}}`, "control"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"Host","value":"a b"}]}}`, "Host"},
		{"http://user:pw@127.0.0.1:80/x", "user"},
		{"http://127.0.0.1:0/x", "port"},
		{"http://127.0.0.1:65536/x", "port"},
		{"https://h:http/x", "HOST:PORT"},
		{"http://h%20x:80/", "HOST:PORT"},
		{"http://h!x:80/", "host"},
	} {
		a, err := ParseAction(c.in)
		if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseAction(%q) = %v, %v; want one line containing %q", c.in, a, err, c.err)
		}
	}
	for _, in := range []string{
		`{"httpGet":{"host":"db-1.internal","port":80}}`,
		`{"httpGet":{"host":"fe80::1%eth0","port":80}}`,
		`{"httpGet":{"host":"my_host","port":80,"httpHeaders":[{"name":"X-A-1","value":"a\tb é"},{"name":"Host","value":"example.com:8080"}]}}`,
		"http://localhost/x?a=b",
		"https://[::1]:8443/",
	} {
		if _, err := ParseAction(in); err != nil {
			t.Errorf("ParseAction(%q): %v", in, err)
		}
	}
}

// TestErrorsQuoteAnExcerpt: an error quotes at most a short excerpt of the
// value, however long, with its control bytes escaped.
func TestErrorsQuoteAnExcerpt(t *testing.T) {
	deep := strings.Repeat("[", 60000) + strings.Repeat("]", 60000)
	for _, in := range []string{
		deep,
		`{"exec":{"command":` + deep + `}}`,
		`{"bogus":"` + strings.Repeat("x", 100000) + `"}`,
		"sleep:" + strings.Repeat("9", 100000),
		"http://" + strings.Repeat("h", 100000) + ":0/",
		`{"httpGet":{"port":80,"httpHeaders":[{"name":"` + strings.Repeat("\\u001b", 10000) + `","value":"x"}]}}`,
		"[\x1b[31m\x00",
	} {
		_, err := ParseAction(in)
		if err == nil {
			t.Fatalf("%.40q: accepted", in)
		}
		if msg := err.Error(); len(msg) > 400 || strings.ContainsAny(msg, "\n\x00\x1b") {
			t.Errorf("%.40q: error of %d bytes: %.200q", in, len(msg), msg)
		}
	}
}
