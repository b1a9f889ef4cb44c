package notify

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want Message
	}{
		{"ready", "READY=1", Message{Ready: true}},
		{"trailing newline", "READY=1\n", Message{Ready: true}},
		{"one trailing NUL", "READY=1\x00", Message{Ready: true}},
		{"multi-line", "READY=1\nSTATUS=serving on :8080\nMAINPID=42\n", Message{Ready: true, HasStatus: true, Status: "serving on :8080", MainPID: 42}},
		{"CR splits as newline", "STATUS=a\r\nREADY=1", Message{Ready: true, HasStatus: true, Status: "a"}},
		{"empty lines", "\n\nWATCHDOG=1\n\n", Message{Watchdog: true}},
		{"ready must be exactly 1", "READY=yes\nREADY=0\nREADY=11", Message{}},
		{"reloading and ready", "RELOADING=1\nREADY=1", Message{Ready: true, Reloading: true}},
		{"stopping", "STOPPING=1", Message{Stopping: true}},
		{"watchdog trigger", "WATCHDOG=trigger", Message{Trigger: true}},
		{"unknown keys ignored", "X_FOO=1\nEXTEND_TIMEOUT_USEC=5000000\nFDSTORE=1\nBARRIER=1\nno equals sign\nREADY=1", Message{Ready: true}},
		{"empty status clears", "STATUS=", Message{HasStatus: true}},
		{"first status wins", "STATUS=one\nSTATUS=two", Message{HasStatus: true, Status: "one"}},
		{"status escaped", "STATUS=\x1b[2Jred\tx", Message{HasStatus: true, Status: `\x1b[2Jred\tx`}},
		{"status not utf-8", "STATUS=\xff\xfe", Message{Ignored: []string{`"STATUS=\xff\xfe"`}}},
		{"bad mainpid", "MAINPID=abc\nREADY=1", Message{Ready: true, Ignored: []string{`"MAINPID=abc"`}}},
		{"mainpid zero, sign, space", "MAINPID=0", Message{Ignored: []string{`"MAINPID=0"`}}},
		{"mainpid plus", "MAINPID=+7", Message{Ignored: []string{`"MAINPID=+7"`}}},
		{"errno", "ERRNO=110", Message{Errno: 110}},
		{"errno out of range", "ERRNO=4096", Message{Ignored: []string{`"ERRNO=4096"`}}},
		{"errno negative", "ERRNO=-1", Message{Ignored: []string{`"ERRNO=-1"`}}},
		{"ignored bounded", strings.Repeat("MAINPID=x\nERRNO=y\nSTATUS=\xff\n", 3) + "MAINPID=z", Message{Ignored: []string{`"MAINPID=x"`, `"ERRNO=y"`, `"STATUS=\xff"`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Parse([]byte(c.in)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", c.in, got, c.want)
			}
		})
	}
}

// TestParseStatusBound: a 4 KB status of control bytes escapes to 16 KB;
// what /readyz shows is cut to StatusMax plus the mark.
func TestParseStatusBound(t *testing.T) {
	m := Parse([]byte("STATUS=" + strings.Repeat("\x01", MaxDatagram-7)))
	if len(m.Status) > StatusMax+len("…") || !strings.HasSuffix(m.Status, "…") || strings.ContainsRune(m.Status, 1) {
		t.Fatalf("status of %d bytes: %.40q...", len(m.Status), m.Status)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		n     int // 0: len(in)
		trunc bool
		want  Drop
	}{
		{"plain", "READY=1", 0, false, Accepted},
		{"trailing NUL", "READY=1\x00", 0, false, Accepted},
		{"lone NUL", "\x00", 0, false, Accepted},
		{"embedded NUL", "READY=1\x00STATUS=x", 0, false, HasNUL},
		{"NUL then NUL", "READY=1\x00\x00", 0, false, HasNUL},
		{"exactly the max", strings.Repeat("x", MaxDatagram), 0, false, Accepted},
		{"one over the max", strings.Repeat("x", MaxDatagram+1), 0, false, Truncated},
		{"MSG_TRUNC", "READY=1", 0, true, Truncated},
	} {
		n := c.n
		if n == 0 {
			n = len(c.in)
		}
		if got := Check([]byte(c.in), n, c.trunc); got != c.want {
			t.Errorf("%s: Check = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMessageSaid: what a message is worth a log line for, in order and
// at its level.
func TestMessageSaid(t *testing.T) {
	for _, c := range []struct {
		msg       string
		was, then bool
		want      string
	}{
		{"READY=1", false, true, "+the app said READY=1 (pid 7)"},
		{"READY=1", true, true, ""},
		{"RELOADING=1", true, false, "+the app said RELOADING=1 (pid 7): not ready until its next READY=1"},
		{"WATCHDOG=1", false, false, ""},
		{"STATUS=up\nSTOPPING=1\nMAINPID=9\nERRNO=5", true, true,
			"-the app's status: up|+the app said STOPPING=1 (pid 7); the stop is still tend's to make|-the app said MAINPID=9; tend watches the app it started|+the app said ERRNO=5"},
		{"MAINPID=abc", false, false, `-malformed lines ignored: "MAINPID=abc"`},
	} {
		m := Parse([]byte(c.msg))
		m.PID = 7
		var got []string
		for _, s := range m.Said(c.was, c.then) {
			level := "-"
			if s.Info {
				level = "+"
			}
			got = append(got, level+s.Text)
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%q (%v -> %v): said %q, want %q", c.msg, c.was, c.then, g, c.want)
		}
	}
}
