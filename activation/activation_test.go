package activation

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	const pid = 41
	noPidfs := func() (uint64, bool) { return 0, false }
	pidfs := func() (uint64, bool) { return 7, true }
	cases := []struct {
		name  string
		env   map[string]string
		own   func() (uint64, bool)
		want  Offer
		ours  bool // the offer is tend's (ErrNotOurs otherwise)
		valid bool
	}{
		{"none", nil, noPidfs, Offer{}, false, false},
		{"other pid", map[string]string{"LISTEN_PID": "40", "LISTEN_FDS": "1"}, noPidfs, Offer{}, false, false},
		{"pid garbage", map[string]string{"LISTEN_PID": "x41", "LISTEN_FDS": "1"}, noPidfs, Offer{}, false, false},
		{"pid with blank", map[string]string{"LISTEN_PID": " 41", "LISTEN_FDS": "1"}, noPidfs, Offer{}, false, false},
		{"ours", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "web:admin"}, noPidfs, Offer{N: 2, Names: "web:admin"}, true, true},
		{"pidfd id matches", map[string]string{"LISTEN_PID": "41", "LISTEN_PIDFDID": "7", "LISTEN_FDS": "1"}, pidfs, Offer{N: 1}, true, true},
		{"pidfd id of another", map[string]string{"LISTEN_PID": "41", "LISTEN_PIDFDID": "8", "LISTEN_FDS": "1"}, pidfs, Offer{}, false, false},
		{"pidfd id unverifiable", map[string]string{"LISTEN_PID": "41", "LISTEN_PIDFDID": "8", "LISTEN_FDS": "1"}, noPidfs, Offer{N: 1}, true, true},
		{"pidfd id garbage", map[string]string{"LISTEN_PID": "41", "LISTEN_PIDFDID": "z", "LISTEN_FDS": "1"}, pidfs, Offer{}, true, false},
		{"fds unset", map[string]string{"LISTEN_PID": "41"}, noPidfs, Offer{}, true, false},
		{"fds zero", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "0"}, noPidfs, Offer{}, true, false},
		{"fds negative", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "-1"}, noPidfs, Offer{}, true, false},
		{"fds plus", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "+1"}, noPidfs, Offer{}, true, false},
		{"fds hex", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "0x2"}, noPidfs, Offer{}, true, false},
		{"fds garbage", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "two\x1b[2J"}, noPidfs, Offer{}, true, false},
		{"fds overflow", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "99999999999999999999"}, noPidfs, Offer{}, true, false},
		{"fds over the bound", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "65537"}, noPidfs, Offer{}, true, false},
		{"fds at the bound", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "65536"}, noPidfs, Offer{N: 65536}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
			got, err := Parse(lookup, pid, c.own)
			switch {
			case !c.ours:
				if !errors.Is(err, ErrNotOurs) {
					t.Fatalf("got %+v, %v; want ErrNotOurs", got, err)
				}
			case !c.valid:
				if err == nil || errors.Is(err, ErrNotOurs) {
					t.Fatalf("got %+v, %v; want a malformed-offer error", got, err)
				}
			default:
				if err != nil || got != c.want {
					t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
				}
			}
		})
	}
}

func TestParseQuotesGarbage(t *testing.T) {
	env := map[string]string{"LISTEN_PID": "1", "LISTEN_FDS": "1\n[tend 1] ERROR: forged"}
	_, err := Parse(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, 1, func() (uint64, bool) { return 0, false })
	if err == nil {
		t.Fatal("no error")
	}
	for _, r := range err.Error() {
		if r == '\n' {
			t.Fatalf("the error breaks the line: %q", err)
		}
	}
}

func TestStrip(t *testing.T) {
	env := []string{"A=1", "LISTEN_PID=3", "LISTEN_PIDFDID=9", "LISTEN_FDS=1", "LISTEN_FDNAMES=web", "LISTEN_PIDX=keep", "B=2"}
	want := []string{"A=1", "LISTEN_PIDX=keep", "B=2"}
	if got := Strip(env); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestForChild(t *testing.T) {
	env := []string{"A=1", "LISTEN_PID=1", "LISTEN_PIDFDID=9", "LISTEN_FDS=1"}
	if got, want := forChild(env, 77, 12, true), []string{"A=1", "LISTEN_PID=77", "LISTEN_PIDFDID=12", "LISTEN_FDS=1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("with pidfs: got %q, want %q", got, want)
	}
	if got, want := forChild(env, 77, 0, false), []string{"A=1", "LISTEN_PID=77", "LISTEN_FDS=1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("without pidfs: got %q, want %q", got, want)
	}
}
