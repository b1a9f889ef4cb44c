package main

import (
	"fmt"
	"io"
	"os"
)

// Verbosity levels, as tini counts them: warnings are shown by default,
// -v adds info and -vv adds debug. Errors are always shown.
const (
	levelError = iota
	levelWarn
	levelInfo
	levelDebug
)

// logger writes tend's own lines to stderr, never to the app's stdout, each
// with the same "[tend PID]" prefix so they can be told apart from the app's
// output in a container log.
type logger struct {
	w     io.Writer
	level int
	pid   int
}

func newLogger(w io.Writer, level int) *logger {
	return &logger{w: w, level: level, pid: os.Getpid()}
}

func (l *logger) logf(level int, tag, format string, args ...any) {
	if l == nil || level > l.level {
		return
	}
	line := fmt.Sprintf("[tend %d] %s: %s\n", l.pid, tag, fmt.Sprintf(format, args...))
	// One Write per line keeps lines whole on a shared pipe; a failed
	// write has nowhere better to be reported.
	_, _ = io.WriteString(l.w, line)
}

func (l *logger) Errorf(format string, args ...any) { l.logf(levelError, "ERROR", format, args...) }
func (l *logger) Warnf(format string, args ...any)  { l.logf(levelWarn, "WARN", format, args...) }
func (l *logger) Infof(format string, args ...any)  { l.logf(levelInfo, "INFO", format, args...) }
func (l *logger) Debugf(format string, args ...any) { l.logf(levelDebug, "DEBUG", format, args...) }
