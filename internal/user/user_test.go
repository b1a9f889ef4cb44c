package user

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
		bad  string // "": valid
	}{
		{in: "0", want: 0},
		{in: "1000", want: 1000},
		{in: "4294967294", want: 4294967294},
		{in: "4294967295", bad: "out of range"}, // (uid_t)-1: "unchanged"
		{in: "4294967296", bad: "out of range"},
		{in: "99999999999999999999", bad: "out of range"},
		{in: "-2", bad: "not an id"},
		{in: "-0", bad: "not an id"},
		{in: "+1000", bad: "not an id"},
		{in: "+0", bad: "not an id"},
		{in: "00", bad: "not an id"},
		{in: "0755", bad: "not an id"},
		{in: "0x10", bad: "not an id"},
		{in: "", bad: "not an id"},
		{in: " 1", bad: "not an id"},
		{in: "1 ", bad: "not an id"},
		{in: "1_000", bad: "not an id"},
		{in: "１", bad: "not an id"}, // a full-width digit
	} {
		got, err := ParseID(c.in)
		switch {
		case c.bad == "" && (err != nil || got != c.want):
			t.Errorf("ParseID(%q) = %d, %v; want %d", c.in, got, err, c.want)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("ParseID(%q) = %d, %v; want an error with %q", c.in, got, err, c.bad)
		}
	}
}

const passwd = `root:x:0:0:root:/root:/bin/bash
# a comment, then a blank line

  nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
app:x:1000:1000:App,,,:/home/app:/bin/sh
ingroups:x:3000:3000::/:/bin/sh
badmember:x:3001:3001::/:/bin/sh
nohome:x:1003:1003:::/bin/sh
dup:x:2000:2000::/a:/bin/sh
dup:x:2001:2001::/b:/bin/sh
4242:x:5000:5000::/n:/bin/sh
neg:x:-2:-2::/:/bin/sh
negshort:x:-2:-2
neggid:x:1001:-7::/:/bin/sh
plus:x:+1000:1000::/:/bin/sh
plusgid:x:1000:+1000::/:/bin/sh
max:x:4294967295:1::/:/bin/sh
over:x:4294967296:1::/:/bin/sh
emptyuid:x::1::/:/bin/sh
nouid:x
short:x:1002:1002
zero:x:00:0::/:/bin/sh
+nis:x:0:0::/:/bin/sh
-nis2:x:0:0::/:/bin/sh
:x:0:0::/:/bin/sh
last:x:1004:1004::/last:/bin/sh`

const group = `root:x:0:
nogroup:x:65534:
staff:x:50:app,ingroups
audio:x:29:ingroups
app:x:1000:app
broken:x:-1:badmember
neg7:x:-7:
plus:x:+1000:
max:x:4294967295:
zero:x:000:
shortg:x:60
fivefields:x:77:ingroups:extra
+nis:x:0:ingroups
ignored:x:-3:someoneelse
last:x:88:`

func writeFiles(t *testing.T, pw, gr string) files {
	t.Helper()
	dir := t.TempDir()
	f := files{passwd: filepath.Join(dir, "passwd"), group: filepath.Join(dir, "group"), maxLine: maxLine, maxTotal: maxTotal}
	for path, s := range map[string]string{f.passwd: pw, f.group: gr} {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestLookup: today's semantics, and every id that is not plain decimal in
// 0..4294967294 in the entry asked for is an error naming the entry, never
// uid or gid 0 (before: neg, plus, max, over and the :GROUP cases gave 0).
func TestLookup(t *testing.T) {
	f := writeFiles(t, passwd, group)
	own := uint32(os.Getgid())
	for _, c := range []struct {
		spec string
		want *User // nil: an error holding bad
		bad  string
	}{
		{spec: "root", want: &User{Uid: 0, Gid: 0, Home: "/root"}},
		{spec: "0", want: &User{Uid: 0, Gid: 0, Home: "/root"}},
		{spec: "nobody", want: &User{Uid: 65534, Gid: 65534, Home: "/nonexistent"}},
		{spec: "app", want: &User{Uid: 1000, Gid: 1000, Home: "/home/app", Groups: []uint32{50}}},
		{spec: "1000", want: &User{Uid: 1000, Gid: 1000, Home: "/home/app", Groups: []uint32{50}}},
		{spec: "ingroups", want: &User{Uid: 3000, Gid: 3000, Home: "/", Groups: []uint32{50, 29}}},
		{spec: "nohome", want: &User{Uid: 1003, Gid: 1003, Home: "/"}},
		{spec: "dup", want: &User{Uid: 2000, Gid: 2000, Home: "/a"}},     // the first entry, as glibc
		{spec: "4242", want: &User{Uid: 5000, Gid: 5000, Home: "/n"}},    // a name before a number
		{spec: "last", want: &User{Uid: 1004, Gid: 1004, Home: "/last"}}, // no newline at the end
		{spec: "nobody:0", want: &User{Uid: 65534, Gid: 0, Home: "/nonexistent"}},
		{spec: "nobody:root", want: &User{Uid: 65534, Gid: 0, Home: "/nonexistent"}},
		{spec: "app:staff", want: &User{Uid: 1000, Gid: 50, Home: "/home/app"}},
		{spec: "app:last", want: &User{Uid: 1000, Gid: 88, Home: "/home/app"}},
		// Not in /etc/passwd, as in a scratch image: tend's group, HOME /.
		{spec: "54321", want: &User{Uid: 54321, Gid: own, Home: "/"}},
		{spec: "54321:54322", want: &User{Uid: 54321, Gid: 54322, Home: "/"}},
		{spec: "4294967294:4294967294", want: &User{Uid: 4294967294, Gid: 4294967294, Home: "/"}},

		// The entry asked for has an id that is not one.
		{spec: "neg", bad: `line 12, entry "neg": uid "-2" is not an id`},
		{spec: "negshort", bad: `entry "negshort": uid "-2" is not an id`},
		{spec: "neggid", bad: `entry "neggid": gid "-7" is not an id`},
		{spec: "plus", bad: `entry "plus": uid "+1000" is not an id`},
		{spec: "plusgid", bad: `entry "plusgid": gid "+1000" is not an id`},
		{spec: "max", bad: `entry "max": uid "4294967295" is out of range`},
		{spec: "over", bad: `entry "over": uid "4294967296" is out of range`},
		{spec: "emptyuid", bad: `entry "emptyuid": uid "" is not an id`},
		{spec: "nouid", bad: `entry "nouid": no uid field`},
		{spec: "short", bad: `entry "short": 4 fields, want 7`},
		{spec: "zero", bad: `entry "zero": uid "00" is not an id`},
		{spec: "nobody:neg7", bad: `entry "neg7": gid "-7" is not an id`},
		{spec: "nobody:plus", bad: `entry "plus": gid "+1000" is not an id`},
		{spec: "nobody:max", bad: `entry "max": gid "4294967295" is out of range`},
		{spec: "nobody:zero", bad: `entry "zero": gid "000" is not an id`},
		{spec: "nobody:shortg", bad: `entry "shortg": 3 fields, want 4`},
		// A group that lists the user, with a bad gid: all or nothing.
		{spec: "badmember", bad: `entry "broken": gid "-1" is not an id`},

		// A number on the command line is plain decimal in range.
		{spec: "+0", bad: `no user "+0" in /etc/passwd, and "+0" is not an id`},
		{spec: "00", bad: `"00" is not an id`},
		{spec: "-0", bad: "not an id"},
		{spec: "-2", bad: "not an id"},
		{spec: "4294967295", bad: "out of range"},
		{spec: "4294967296", bad: "out of range"},
		{spec: "nobody:+0", bad: `no group "+0" in /etc/group, and "+0" is not an id`},
		{spec: "nobody:00", bad: "not an id"},
		{spec: "nobody:-7", bad: "not an id"},
		{spec: "nobody:4294967295", bad: "out of range"},
		{spec: "0:+0", bad: "not an id"},

		{spec: "+nis", bad: `no user "+nis"`}, // NIS lines are skipped
		{spec: "nis", bad: `no user "nis" in /etc/passwd`},
		{spec: "no-such-user", bad: `no user "no-such-user" in /etc/passwd`},
		{spec: "nobody:no-such-group", bad: `no group "no-such-group" in /etc/group`},
		{spec: "", bad: "want USER"},
		{spec: ":0", bad: "want USER"},
		{spec: "nobody:", bad: "want USER"},
	} {
		got, err := f.lookup(c.spec)
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("lookup(%q) = %+v, %v; want an error with %q", c.spec, got, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("lookup(%q): %v", c.spec, err)
			continue
		}
		c.want.Spec = c.spec
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("lookup(%q) = %+v, want %+v", c.spec, got, c.want)
		}
	}
}

// TestLookupWithoutFiles: a scratch image has neither file; a number
// still works, a name does not.
func TestLookupWithoutFiles(t *testing.T) {
	dir := t.TempDir()
	f := files{passwd: filepath.Join(dir, "passwd"), group: filepath.Join(dir, "group"), maxLine: maxLine, maxTotal: maxTotal}
	if u, err := f.lookup("1000:5"); err != nil || u.Uid != 1000 || u.Gid != 5 || u.Home != "/" {
		t.Errorf("lookup(1000:5) = %+v, %v", u, err)
	}
	if _, err := f.lookup("app"); err == nil || !strings.Contains(err.Error(), `no user "app"`) {
		t.Errorf("lookup(app): %v, want no user", err)
	}
	// A passwd entry without /etc/group: its groups cannot be known.
	if err := os.WriteFile(f.passwd, []byte(passwd), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.lookup("app"); err == nil || !strings.Contains(err.Error(), "the groups of") {
		t.Errorf("lookup(app) without /etc/group: %v", err)
	}
	if u, err := f.lookup("app:7"); err != nil || u.Gid != 7 {
		t.Errorf("lookup(app:7) without /etc/group = %+v, %v", u, err)
	}
}

// TestLookupUserReadsEtc: LookupUser reads this machine's /etc/passwd,
// and names the spec in its errors.
func TestLookupUserReadsEtc(t *testing.T) {
	u, err := LookupUser("root")
	if err != nil || u.Uid != 0 || u.Gid != 0 || u.Spec != "root" {
		t.Fatalf("LookupUser(root) = %+v, %v", u, err)
	}
	if _, err := LookupUser("x\x1b[31m"); err == nil || !strings.Contains(err.Error(), `--user "x\x1b[31m"`) {
		t.Errorf("LookupUser: %v, want the spec quoted, escaped", err)
	}
}

func TestCredential(t *testing.T) {
	u := &User{Uid: 1, Gid: 2, Groups: []uint32{3}}
	c := u.Credential()
	c.Groups[0] = 9
	if c.Uid != 1 || c.Gid != 2 || u.Groups[0] != 3 {
		t.Errorf("Credential = %+v, u = %+v", c, u)
	}
	if c := (&User{}).Credential(); c.Groups == nil || len(c.Groups) != 0 {
		t.Errorf("no groups: %#v, want an empty list (setgroups clears tend's)", c.Groups)
	}
}

// TestCheckSwitch: root may switch to anyone; a tend that is not root
// runs processes as itself when asked for its own uid and gid (no
// credential, so no setgroups, which would fail with EPERM), and refuses
// anyone else with a line that names the switch.
func TestCheckSwitch(t *testing.T) {
	for _, c := range []struct {
		uid, gid, euid, egid uint32
		ok, unchanged        bool
	}{
		{0, 0, 0, 0, true, false},
		{33, 33, 0, 0, true, false},
		{33, 33, 33, 33, true, true},
		{1000680000, 0, 1000680000, 0, true, true},
		{0, 0, 33, 33, false, false},
		{33, 0, 33, 33, false, false},
	} {
		u := &User{Spec: "x", Uid: c.uid, Gid: c.gid, Groups: []uint32{33}}
		err := u.checkSwitch(c.euid, c.egid)
		if (err == nil) != c.ok || u.Unchanged != c.unchanged || (u.Credential() == nil) != c.unchanged {
			t.Errorf("%+v: err %v, unchanged %v, credential %v", c, err, u.Unchanged, u.Credential())
		}
		if err != nil && !strings.Contains(err.Error(), `--user "x": cannot switch to uid`) {
			t.Errorf("%+v: %v does not name the switch", c, err)
		}
	}
}
