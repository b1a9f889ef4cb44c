// Package logger writes tend's own lines to stderr: tini's text or one
// JSON object a line, through a bounded queue that never blocks the loop.
package logger

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
)

// Verbosity levels, as tini counts them: warnings are shown by default,
// -v adds info and -vv adds debug. Errors are always shown.
const (
	LevelError = iota
	LevelWarn
	LevelInfo
	LevelDebug
)

// Format is how a line is written: tini's text, or one JSON object.
type Format int

const (
	// Text is "[tend PID] LEVEL: message", as tini writes; the default.
	Text Format = iota
	// JSON is one JSON object per line, written by slog's JSONHandler:
	// time (RFC 3339, UTC), level, msg, pid, then the event's fields.
	JSON
)

// ParseFormat reads --log-format's value: "text" or "json".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "text":
		return Text, nil
	case "json":
		return JSON, nil
	}
	return 0, fmt.Errorf("want text or json")
}

func (f Format) String() string {
	if f == JSON {
		return "json"
	}
	return "text"
}

// SlogLevel is the slog level that a tend verbosity shows down to: 0
// errors, 1 (the default) warnings, 2 (-v) info, 3 or more (-vv) debug.
// The JSON "level" of a line is its slog level's name: ERROR, WARN, INFO
// or DEBUG, the same words the text format uses.
func SlogLevel(verbosity int) slog.Level {
	switch {
	case verbosity <= LevelError:
		return slog.LevelError
	case verbosity == LevelWarn:
		return slog.LevelWarn
	case verbosity == LevelInfo:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// Logger writes tend's own lines to stderr, never to the app's stdout. In
// text, each line has the same "[tend PID]" prefix so it can be told apart
// from the app's output in a container log; in JSON, each line is an
// object with tend's pid.
//
// The loop's logger is asynchronous: a line goes into a bounded queue that
// one goroutine writes out, and a line that finds the queue full is
// dropped and counted. A stderr pipe whose reader has stopped, or a flood of
// debug lines, must never hold up the loop: a blocked log write once kept a
// TERM waiting behind it.
//
// In JSON the caller only takes the time, formats the message and copies
// the fields into a slog.Record; the writer goroutine encodes it. So the
// loop does no JSON escaping, the one handler is used by one goroutine
// (the reaper's and health server's lines do not contend on its mutex),
// and, as in text, the only blocking write is the writer's. The time is
// the event's, taken when it was logged, not when stderr took the line.
type Logger struct {
	w       io.Writer
	level   int
	pid     int
	json    slog.Handler  // nil: text
	q       chan logEntry // nil: write synchronously
	dropped atomic.Uint64
	trace   string // the tag of a peer's trace lines; "": no trace (SetTrace)
}

// logEntry is a line to write, a record to encode, or a flush request to
// acknowledge.
type logEntry struct {
	line string       // text: the whole line
	rec  *slog.Record // json: the event, encoded by the writer
	ack  chan struct{}
}

// logQueue is how many lines may wait for a slow stderr.
const logQueue = 1024

// New writes each line before returning: for set-up errors, where
// tend exits right after, and for tests.
func New(w io.Writer, level int, format Format) *Logger {
	l := &Logger{w: w, level: level, pid: os.Getpid()}
	if format == JSON {
		// Only the JSON handler is used: slog's text handler is never
		// referenced, so the linker leaves it out. pid is encoded once,
		// here, not on every line.
		h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: SlogLevel(level)})
		l.json = h.WithAttrs([]slog.Attr{slog.Int("pid", l.pid)})
	}
	return l
}

// NewAsync queues lines for a writer goroutine; see Logger.
func NewAsync(w io.Writer, level int, format Format) *Logger {
	l := New(w, level, format)
	l.q = make(chan logEntry, logQueue)
	go l.drain()
	return l
}

func (l *Logger) drain() {
	for e := range l.q {
		if e.ack != nil {
			close(e.ack)
			continue
		}
		if n := l.dropped.Swap(0); n > 0 {
			l.emit(l.entry(LevelWarn, []slog.Attr{slog.Uint64("dropped", n)},
				fmt.Sprintf("%d log line(s) dropped: stderr was not read fast enough", n)))
		}
		l.emit(e)
	}
}

// emit writes one entry in one Write, which keeps lines whole on a shared
// pipe (slog's handler also writes each record once). A failed write has
// nowhere better to be reported.
func (l *Logger) emit(e logEntry) {
	if e.rec != nil {
		_ = l.json.Handle(context.Background(), *e.rec)
		return
	}
	_, _ = io.WriteString(l.w, e.line)
}

// Flush waits until every queued line is written, for at most d: a stderr
// that nobody reads must not keep tend from exiting.
func (l *Logger) Flush(d time.Duration) {
	if l == nil || l.q == nil {
		return
	}
	ack := make(chan struct{})
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l.q <- logEntry{ack: ack}:
	case <-t.C:
		return
	}
	select {
	case <-ack:
	case <-t.C:
	}
}

// entry is a line in the logger's format. The JSON message is the text
// line's message, word for word; the fields repeat what it says for
// machines.
func (l *Logger) entry(level int, attrs []slog.Attr, msg string) logEntry {
	if l.json == nil {
		// The tag is the level's slog name (ERROR, WARN, INFO, DEBUG):
		// one spelling for both formats. The message is escaped
		// (excerpt.Escape): it may quote a stranger's bytes, and one line must
		// stay one harmless line. JSON has its own escaping, and keeps
		// the value: slog's encoder escapes the C0 controls, U+2028 and
		// U+2029 and replaces invalid UTF-8, so a line stays one line; DEL
		// and the C1 controls are valid JSON raw and decode to themselves
		// (FuzzJSONLine pins that a JSON value says exactly what was
		// logged).
		return logEntry{line: fmt.Sprintf("[tend %d] %s: %s\n", l.pid, SlogLevel(level), excerpt.Escape(msg))}
	}
	r := slog.NewRecord(time.Now().UTC(), SlogLevel(level), msg, 0)
	r.AddAttrs(attrs...) // copied: the caller's slice may be reused
	return logEntry{rec: &r}
}

func (l *Logger) logf(level int, attrs []slog.Attr, format string, args ...any) {
	if l == nil || level > l.level {
		return
	}
	l.put(l.entry(level, attrs, fmt.Sprintf(format, args...)))
}

// put writes e now, or queues it; a full queue drops it and counts.
func (l *Logger) put(e logEntry) {
	if l.q == nil {
		l.emit(e)
		return
	}
	select {
	case l.q <- e:
	default:
		l.dropped.Add(1)
	}
}

func (l *Logger) Errorf(format string, args ...any) {
	l.logf(LevelError, nil, format, args...)
}
func (l *Logger) Warnf(format string, args ...any) { l.logf(LevelWarn, nil, format, args...) }
func (l *Logger) Infof(format string, args ...any) { l.logf(LevelInfo, nil, format, args...) }
func (l *Logger) Debugf(format string, args ...any) {
	l.logf(LevelDebug, nil, format, args...)
}

// With is a line with structured fields: in JSON they are keys beside msg;
// text ignores them, since its message already says the same. Fields are
// of concrete kinds (strings, numbers, durations, booleans), never
// slog.Any of a struct, so encoding needs no reflection.
func (l *Logger) With(attrs ...slog.Attr) Fields { return Fields{l: l, attrs: attrs} }

// Fields is a Logger with an event's fields; see Logger.With.
type Fields struct {
	l     *Logger
	attrs []slog.Attr
}

func (f Fields) Errorf(format string, args ...any) {
	f.l.logf(LevelError, f.attrs, format, args...)
}
func (f Fields) Warnf(format string, args ...any) {
	f.l.logf(LevelWarn, f.attrs, format, args...)
}
func (f Fields) Infof(format string, args ...any) {
	f.l.logf(LevelInfo, f.attrs, format, args...)
}
func (f Fields) Debugf(format string, args ...any) {
	f.l.logf(LevelDebug, f.attrs, format, args...)
}

// Raw writes line as it is, with a newline, in order with the other lines
// and through the same queue: no prefix, no level and no escaping, for a
// mode that prints a peer's own lines word for word. The caller chooses
// when; the verbosity does not apply.
func (l *Logger) Raw(line string) {
	if l == nil {
		return
	}
	l.put(logEntry{line: line + "\n"})
}

// WarnAlways writes a warning whatever the verbosity: for a build setting
// the user never chose that changes what tend does, which a mode whose
// default is errors only would otherwise hide.
func (l *Logger) WarnAlways(msg string) {
	if l == nil {
		return
	}
	l.put(l.entry(LevelWarn, nil, msg))
}
