package lifecycle

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Verbosity levels, as tini counts them: warnings are shown by default,
// -v adds info and -vv adds debug. Errors are always shown.
const (
	LevelError = iota
	LevelWarn
	LevelInfo
	LevelDebug
)

// Logger writes tend's own lines to stderr, never to the app's stdout, each
// with the same "[tend PID]" prefix so they can be told apart from the app's
// output in a container log.
//
// The loop's logger is asynchronous: a line goes into a bounded queue that
// one goroutine writes out, and a line that finds the queue full is
// dropped and counted. A stderr pipe whose reader has stopped, or a flood of
// debug lines, must never hold up the loop: a blocked log write once kept a
// TERM waiting behind it.
type Logger struct {
	w       io.Writer
	level   int
	pid     int
	q       chan logEntry // nil: write synchronously
	dropped atomic.Uint64
}

// logEntry is a line to write, or a flush request to acknowledge.
type logEntry struct {
	line string
	ack  chan struct{}
}

// logQueue is how many lines may wait for a slow stderr.
const logQueue = 1024

// NewLogger writes each line before returning: for set-up errors, where
// tend exits right after, and for tests.
func NewLogger(w io.Writer, level int) *Logger {
	return &Logger{w: w, level: level, pid: os.Getpid()}
}

// newAsyncLogger queues lines for a writer goroutine; see Logger.
func newAsyncLogger(w io.Writer, level int) *Logger {
	l := NewLogger(w, level)
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
			l.write(fmt.Sprintf("[tend %d] WARN: %d log line(s) dropped: stderr was not read fast enough\n", l.pid, n))
		}
		l.write(e.line)
	}
}

// write is one Write per line, which keeps lines whole on a shared pipe. A
// failed write has nowhere better to be reported.
func (l *Logger) write(line string) { _, _ = io.WriteString(l.w, line) }

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

func (l *Logger) logf(level int, tag, format string, args ...any) {
	if l == nil || level > l.level {
		return
	}
	line := fmt.Sprintf("[tend %d] %s: %s\n", l.pid, tag, fmt.Sprintf(format, args...))
	if l.q == nil {
		l.write(line)
		return
	}
	select {
	case l.q <- logEntry{line: line}:
	default:
		l.dropped.Add(1)
	}
}

func (l *Logger) Errorf(format string, args ...any) { l.logf(LevelError, "ERROR", format, args...) }
func (l *Logger) Warnf(format string, args ...any)  { l.logf(LevelWarn, "WARN", format, args...) }
func (l *Logger) Infof(format string, args ...any)  { l.logf(LevelInfo, "INFO", format, args...) }
func (l *Logger) Debugf(format string, args ...any) { l.logf(LevelDebug, "DEBUG", format, args...) }
