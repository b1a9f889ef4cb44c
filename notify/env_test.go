package notify

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func lookupOf(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		name, val string
		unset     bool
		wantErr   string // "" means a Sender
	}{
		{name: "unset", unset: true},
		{name: "path", val: "/run/notify"},
		{name: "abstract", val: "@podman-notify-1234"},
		{name: "longest path", val: "/" + strings.Repeat("p", maxSunPath-2)},
		{name: "longest abstract", val: "@" + strings.Repeat("a", maxSunPath-1)},
		{name: "empty", val: "", wantErr: "empty"},
		{name: "relative", val: "run/notify", wantErr: "neither an absolute path"},
		{name: "lone @", val: "@", wantErr: "no abstract"},
		{name: "vsock", val: "vsock:2:1234", wantErr: "vsock"},
		{name: "path too long", val: "/" + strings.Repeat("p", maxSunPath-1), wantErr: "longer than"},
		{name: "abstract too long", val: "@" + strings.Repeat("a", maxSunPath), wantErr: "longer than"},
		{name: "NUL in path", val: "/run/a\x00b", wantErr: "NUL"},
		{name: "escape codes are quoted", val: "\x1b[31mred", wantErr: `"\x1b[31mred"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			lookup := lookupOf(EnvSocket, c.val)
			if c.unset {
				lookup = lookupOf()
			}
			s, err := FromEnv(lookup)
			if s != nil {
				defer s.Close()
			}
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || s != nil {
					t.Fatalf("FromEnv(%q) = %v, %v; want error with %q", c.val, s, err, c.wantErr)
				}
			case err != nil:
				t.Fatalf("FromEnv(%q): %v", c.val, err)
			case c.unset != (s == nil):
				t.Fatalf("FromEnv(%q) = %v, want a Sender only when set", c.val, s)
			}
		})
	}
	if _, err := FromEnv(lookupOf(EnvSocket, "vsock:2:1")); !errors.Is(err, ErrVsock) {
		t.Errorf("vsock: %v, want ErrVsock", err)
	}
}

func TestWatchdogFromEnv(t *testing.T) {
	const self = 1
	for _, c := range []struct {
		name    string
		kv      []string
		want    time.Duration
		wantErr bool
	}{
		{"unset", nil, 0, false},
		{"set", []string{EnvWatchdogUsec, "30000000"}, 30 * time.Second, false},
		{"pid is ours", []string{EnvWatchdogUsec, "2000000", EnvWatchdogPid, "1"}, 2 * time.Second, false},
		{"pid is another's", []string{EnvWatchdogUsec, "2000000", EnvWatchdogPid, "77"}, 0, false},
		{"bad pid", []string{EnvWatchdogUsec, "2000000", EnvWatchdogPid, "one"}, 0, true},
		{"zero", []string{EnvWatchdogUsec, "0"}, 0, true},
		{"negative", []string{EnvWatchdogUsec, "-5"}, 0, true},
		{"words", []string{EnvWatchdogUsec, "30s"}, 0, true},
		{"empty", []string{EnvWatchdogUsec, ""}, 0, true},
		{"infinity", []string{EnvWatchdogUsec, "18446744073709551615"}, 0, true},
		{"huge is capped, not wrapped", []string{EnvWatchdogUsec, "18446744073709551614"}, time.Duration(1<<63-1) / time.Microsecond * time.Microsecond, false},
	} {
		got, err := WatchdogFromEnv(lookupOf(c.kv...), self)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%s: WatchdogFromEnv = %v, %v; want %v, error %v", c.name, got, err, c.want, c.wantErr)
		}
	}
	if got := Interval(30 * time.Second); got != 15*time.Second {
		t.Errorf("Interval(30s) = %v", got)
	}
}

func TestStripEnv(t *testing.T) {
	in := []string{"PATH=/bin", "NOTIFY_SOCKET=/run/n", "WATCHDOG_USEC=5", "WATCHDOG_PID=1", "NOTIFY_SOCKETX=keep", "HOME=/root", "WATCHDOG_USEC"}
	want := []string{"PATH=/bin", "NOTIFY_SOCKETX=keep", "HOME=/root"}
	if got := StripEnv(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("StripEnv = %q, want %q", got, want)
	}
}
