package lifecycle

import (
	"fmt"
	"io"
	"os"
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
type Logger struct {
	w     io.Writer
	level int
	pid   int
}

func NewLogger(w io.Writer, level int) *Logger {
	return &Logger{w: w, level: level, pid: os.Getpid()}
}

func (l *Logger) logf(level int, tag, format string, args ...any) {
	if l == nil || level > l.level {
		return
	}
	line := fmt.Sprintf("[tend %d] %s: %s\n", l.pid, tag, fmt.Sprintf(format, args...))
	// One Write per line keeps lines whole on a shared pipe; a failed
	// write has nowhere better to be reported.
	_, _ = io.WriteString(l.w, line)
}

func (l *Logger) Errorf(format string, args ...any) { l.logf(LevelError, "ERROR", format, args...) }
func (l *Logger) Warnf(format string, args ...any)  { l.logf(LevelWarn, "WARN", format, args...) }
func (l *Logger) Infof(format string, args ...any)  { l.logf(LevelInfo, "INFO", format, args...) }
func (l *Logger) Debugf(format string, args ...any) { l.logf(LevelDebug, "DEBUG", format, args...) }
