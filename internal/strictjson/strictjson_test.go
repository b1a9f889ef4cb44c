package strictjson

import (
	"strings"
	"testing"
)

// TestDecode: keys match exactly, once, and nothing follows the value, as
// under the API server's strict field validation; hooks' and probe's
// tests cover their own types.
func TestDecode(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type outer struct {
		A  string  `json:"a"`
		In *inner  `json:"in"`
		L  []inner `json:"l"`
	}
	for in, want := range map[string]string{
		`{"a":"x","in":{"n":1},"l":[{"n":2}]}`: "",
		`{"a":"x","in":null}`:                  "",
		`{"A":"x"}`:                            `unknown field "A"`,
		`{"in":{"N":1}}`:                       `unknown field "in.N"`,
		`{"l":[{"n":1},{"n":1,"n":2}]}`:        `duplicate field "l[1].n"`,
		`{"a":"x","a":"y"}`:                    `duplicate field "a"`,
		`{"a":"x"} {}`:                         "after",
	} {
		var v outer
		err := Decode(in, &v)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Decode(%s) = %v, want %q", in, err, want)
		}
	}
}
