package signals

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want unix.Signal
		ok   bool
	}{
		{"SIGTERM", unix.SIGTERM, true},
		{"TERM", unix.SIGTERM, true},
		{"sigkill", unix.SIGKILL, true},
		{"15", unix.SIGTERM, true},
		{"SIGRTMIN", 34, true},
		{"RTMIN+2", 36, true},
		{"SIGRTMAX", 64, true},
		{"SIGRTMAX-1", 63, true},
		{"SIGRTMIN+31", 0, false},
		{"SIGRTMIN-1", 0, false},
		{"0", 0, false},
		{"65", 0, false},
		{"-1", 0, false},
		{"SIGNOPE", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestNameRoundTrip(t *testing.T) {
	for _, s := range Forwarded() {
		got, err := Parse(Name(s))
		if err != nil || got != s {
			t.Errorf("Parse(Name(%d)=%q) = %v, %v", s, Name(s), got, err)
		}
	}
}

func TestForwardedExcludesRuntimeSignals(t *testing.T) {
	want := map[unix.Signal]bool{
		unix.SIGHUP: true, unix.SIGINT: true, unix.SIGQUIT: true, unix.SIGTERM: true,
		unix.SIGUSR1: true, unix.SIGUSR2: true, unix.SIGALRM: true, unix.SIGCONT: true,
		unix.SIGTSTP: true, unix.SIGWINCH: true, unix.SIGXCPU: true,
		unix.SIGVTALRM: true,
	}
	got := map[unix.Signal]bool{}
	for _, s := range Forwarded() {
		got[s] = true
		switch s {
		case unix.SIGURG, unix.SIGCHLD, unix.SIGPIPE, unix.SIGKILL, unix.SIGSTOP, unix.SIGPROF, 32, 33, 34:
			t.Errorf("%s must never be forwarded", Name(s))
		}
	}
	for s := range want {
		if !got[s] {
			t.Errorf("%s is not forwarded", Name(s))
		}
	}
	for n := unix.Signal(35); n <= 64; n++ {
		if !got[n] {
			t.Errorf("realtime %s is not forwarded", Name(n))
		}
	}
}

func TestRewrite(t *testing.T) {
	cases := []struct {
		rule     string
		from, to unix.Signal
		ok       bool
	}{
		{"TERM:QUIT", unix.SIGTERM, unix.SIGQUIT, true},
		{"15:3", unix.SIGTERM, unix.SIGQUIT, true},
		{"SIGUSR1:0", unix.SIGUSR1, 0, true},
		{"RTMIN+1:HUP", 35, unix.SIGHUP, true},
		{"TERM", 0, 0, false},
		{"TERM:", 0, 0, false},
		{":QUIT", 0, 0, false},
		{"TERM:NOPE", 0, 0, false},
		{"0:TERM", 0, 0, false},
	}
	for _, c := range cases {
		from, to, err := ParseRewrite(c.rule)
		if (err == nil) != c.ok || from != c.from || to != c.to {
			t.Errorf("ParseRewrite(%q) = %v,%v,%v", c.rule, from, to, err)
		}
	}
	r := Rewrite{unix.SIGTERM: unix.SIGQUIT, unix.SIGUSR1: 0}
	if s, ok := r.Apply(unix.SIGTERM); !ok || s != unix.SIGQUIT {
		t.Errorf("TERM -> %v %v", s, ok)
	}
	if _, ok := r.Apply(unix.SIGUSR1); ok {
		t.Errorf("USR1 should be dropped")
	}
	if s, ok := r.Apply(unix.SIGHUP); !ok || s != unix.SIGHUP {
		t.Errorf("HUP -> %v %v", s, ok)
	}
}
