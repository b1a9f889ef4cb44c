package lifecycle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// TestTextLinesUnchanged: text is tini's line, byte for byte, fields or
// not: tini's users grep it.
func TestTextLinesUnchanged(t *testing.T) {
	var b bytes.Buffer
	l := NewLogger(&b, plan.LevelDebug, plan.LogText)
	l.Warnf("stop: %s; grace period %s", "liveness probe failed", 30*time.Second)
	l.With(hookField(plan.HookPreStop), durField(1500*time.Millisecond), errField(errors.New("exit status 1"))).
		Warnf("%s failed after %s: %v", plan.HookPreStop, 1500*time.Millisecond, "exit status 1")
	l.With(sigField(unix.SIGTERM)).Debugf("forwarded %s to pid %d", "SIGTERM", 7)
	pid := os.Getpid()
	want := fmt.Sprintf("[tend %d] WARN: stop: liveness probe failed; grace period 30s\n"+
		"[tend %d] WARN: pre-stop failed after 1.5s: exit status 1\n"+
		"[tend %d] DEBUG: forwarded SIGTERM to pid 7\n", pid, pid, pid)
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// jsonLines decodes every line of out, failing on any that is not one
// JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("not a JSON object: %q: %v", line, err)
		}
		objs = append(objs, o)
	}
	return objs
}

// TestJSONLine: time (RFC 3339, UTC), level, msg and pid, then the fields;
// the message is the text line's.
func TestJSONLine(t *testing.T) {
	var b bytes.Buffer
	l := NewLogger(&b, plan.LevelWarn, plan.LogJSON)
	before := time.Now()
	l.With(hookField(plan.HookPostStart), durField(1500*time.Millisecond), errField(errors.New("timed out")), slog.Int("code", 69)).
		Warnf("%s failed after %s: %v", plan.HookPostStart, 1500*time.Millisecond, "timed out")
	o := jsonLines(t, b.String())[0]
	ts, _ := o["time"].(string)
	at, err := time.Parse(time.RFC3339, ts)
	if err != nil || !strings.HasSuffix(ts, "Z") || at.Location() != time.UTC {
		t.Fatalf("time %q is not RFC 3339 in UTC: %v", ts, err)
	}
	if at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Fatalf("time %s is not now", at)
	}
	want := map[string]any{
		"level": "WARN", "msg": "post-start failed after 1.5s: timed out", "pid": float64(os.Getpid()),
		"hook": "post-start", "duration": float64(1500 * time.Millisecond), "error": "timed out", "code": float64(69),
	}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("%s: got %#v, want %#v", k, o[k], v)
		}
	}
	if len(o) != len(want)+1 {
		t.Errorf("unexpected keys: %v", o)
	}
	// The order is slog's: built-ins, then pid, then the event's fields.
	line := b.String()
	if i, j, k := strings.Index(line, `"time"`), strings.Index(line, `"pid"`), strings.Index(line, `"hook"`); !(i == 1 && i < j && j < k) {
		t.Errorf("key order: %s", line)
	}
}

// TestLevels: what each verbosity shows, the same in both formats, and
// each line's JSON level.
func TestLevels(t *testing.T) {
	for verbosity, want := range map[int][]string{
		0: {"ERROR"},
		1: {"ERROR", "WARN"},
		2: {"ERROR", "WARN", "INFO"},
		3: {"ERROR", "WARN", "INFO", "DEBUG"},
		7: {"ERROR", "WARN", "INFO", "DEBUG"},
	} {
		for _, format := range []plan.LogFormat{plan.LogText, plan.LogJSON} {
			var b bytes.Buffer
			l := NewLogger(&b, verbosity, format)
			l.Errorf("e")
			l.Warnf("w")
			l.Infof("i")
			l.Debugf("d")
			var got []string
			for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if format == plan.LogText {
					_, rest, _ := strings.Cut(line, "] ")
					tag, _, _ := strings.Cut(rest, ":")
					got = append(got, tag)
					continue
				}
				var o struct{ Level string }
				if err := json.Unmarshal([]byte(line), &o); err != nil {
					t.Fatal(err)
				}
				got = append(got, o.Level)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("verbosity %d, %s: got %v, want %v", verbosity, format, got, want)
			}
		}
	}
	if SlogLevel(-1) != slog.LevelError || SlogLevel(1) != slog.LevelWarn || SlogLevel(2) != slog.LevelInfo || SlogLevel(5) != slog.LevelDebug {
		t.Fatal("SlogLevel")
	}
}

func TestParseLogFormat(t *testing.T) {
	for s, want := range map[string]plan.LogFormat{"text": plan.LogText, "json": plan.LogJSON} {
		if f, err := plan.ParseLogFormat(s); err != nil || f != want || f.String() != s {
			t.Errorf("%q: %v %v", s, f, err)
		}
	}
	for _, s := range []string{"", "JSON", "logfmt", "json "} {
		if _, err := plan.ParseLogFormat(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// blockedWriter is a stderr whose reader has stopped: every Write waits
// until release is closed.
type blockedWriter struct {
	release chan struct{}
	mu      sync.Mutex
	b       bytes.Buffer
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestJSONNeverBlocks: in JSON as in text, a stderr that nobody reads
// never holds up the caller; lines beyond the queue are dropped, and the
// count is reported, as JSON, once stderr moves again.
func TestJSONNeverBlocks(t *testing.T) {
	w := &blockedWriter{release: make(chan struct{})}
	l := newAsyncLogger(w, plan.LevelWarn, plan.LogJSON)
	start := time.Now()
	n := 3 * logQueue
	for i := range n {
		l.With(slog.Int("i", i)).Warnf("line %d", i)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("%d lines took %s with stderr blocked", n, took)
	}
	if l.dropped.Load() == 0 {
		t.Fatal("nothing dropped with stderr blocked")
	}
	close(w.release)
	l.Flush(5 * time.Second) // the queue empties
	l.Warnf("after")         // so this line is not dropped, and brings the count
	l.Flush(5 * time.Second)
	w.mu.Lock()
	out := w.b.String()
	w.mu.Unlock()
	objs := jsonLines(t, out)
	var dropped, notices int
	for _, o := range objs {
		if d, ok := o["dropped"].(float64); ok {
			dropped += int(d)
			notices++
			if o["level"] != "WARN" || !strings.Contains(o["msg"].(string), "log line(s) dropped") {
				t.Errorf("drop notice: %v", o)
			}
		}
	}
	if written := len(objs) - notices; dropped == 0 || written+dropped != n+1 {
		t.Fatalf("%d lines logged, %d written, %d reported dropped", n+1, written, dropped)
	}
	if last := objs[len(objs)-1]; last["msg"] != "after" {
		t.Fatalf("the last line is %v", last)
	}
}

// FuzzJSONLine: whatever a message or a field holds (quotes, newlines,
// control bytes, invalid UTF-8), a JSON line is one valid JSON object on
// one line, and says the same with invalid bytes as U+FFFD.
func FuzzJSONLine(f *testing.F) {
	for _, s := range []string{
		`say "hi"`, "two\nlines\r\n", "tab\tnul\x00bell\x07esc\x1b[0m del\x7f", "bad \xff\xfe utf-8 \xc3",
		"\u2028 line separator \u2029", `back\slash </script> & <`, "",
	} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, msg, field string) {
		var b bytes.Buffer
		NewLogger(&b, plan.LevelDebug, plan.LogJSON).With(slog.String("error", field)).Errorf("%s", msg)
		out := b.String()
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
			t.Fatalf("not one line: %q", out)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		var o map[string]any
		if err := json.Unmarshal(b.Bytes(), &o); err != nil {
			t.Fatalf("not JSON: %q: %v", out, err)
		}
		// Each invalid byte becomes one U+FFFD, as []rune converts.
		if got, want := o["msg"], string([]rune(msg)); got != want {
			t.Fatalf("msg %q, want %q", got, want)
		}
		if got, want := o["error"], string([]rune(field)); got != want {
			t.Fatalf("error %q, want %q", got, want)
		}
	})
}
