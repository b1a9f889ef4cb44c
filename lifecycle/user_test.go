package lifecycle

import (
	"os"
	"os/user"
	"reflect"
	"strings"
	"testing"
)

func TestLookupUser(t *testing.T) {
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no nobody in /etc/passwd here")
	}
	own := uint32(os.Getgid())
	for _, c := range []struct {
		spec string
		want *User // nil: an error holding bad
		bad  string
	}{
		{spec: "root", want: &User{Uid: 0, Gid: 0, Home: "/root"}},
		{spec: "0", want: &User{Uid: 0, Gid: 0, Home: "/root"}},
		{spec: "nobody", want: &User{Uid: atou(nobody.Uid), Gid: atou(nobody.Gid), Home: nobody.HomeDir}},
		{spec: "nobody:0", want: &User{Uid: atou(nobody.Uid), Gid: 0, Home: nobody.HomeDir}},
		{spec: "nobody:root", want: &User{Uid: atou(nobody.Uid), Gid: 0, Home: nobody.HomeDir}},
		// Not in /etc/passwd, as in a scratch image: tend's group, HOME /.
		{spec: "54321", want: &User{Uid: 54321, Gid: own, Home: "/"}},
		{spec: "54321:54322", want: &User{Uid: 54321, Gid: 54322, Home: "/"}},
		{spec: "no-such-user", bad: "no user"},
		{spec: "nobody:no-such-group", bad: "no group"},
		{spec: "", bad: "want USER"},
		{spec: ":0", bad: "want USER"},
		{spec: "nobody:", bad: "want USER"},
		{spec: "x\x1b[31m", bad: `\x1b`}, // quoted, escaped
	} {
		got, err := LookupUser(c.spec)
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("LookupUser(%q) = %+v, %v; want an error with %q", c.spec, got, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("LookupUser(%q): %v", c.spec, err)
			continue
		}
		c.want.Spec = c.spec
		if got.Groups != nil && c.want.Groups == nil && strings.Contains(c.spec, ":") {
			t.Errorf("LookupUser(%q): an explicit group must be the only one, got %v", c.spec, got.Groups)
		}
		got.Groups = nil // the host's /etc/group decides these
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("LookupUser(%q) = %+v, want %+v", c.spec, got, c.want)
		}
	}
}

func atou(s string) uint32 {
	var n uint32
	for _, c := range s {
		n = n*10 + uint32(c-'0')
	}
	return n
}
