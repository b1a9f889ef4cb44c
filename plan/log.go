package plan

import "fmt"

// Verbosity levels, as tini counts them: warnings are shown by default,
// -v adds info and -vv adds debug. Errors are always shown.
const (
	LevelError = iota
	LevelWarn
	LevelInfo
	LevelDebug
)

// LogFormat is how a line is written: tini's text, or one JSON object.
type LogFormat int

const (
	// LogText is "[tend PID] LEVEL: message", as tini writes; the default.
	LogText LogFormat = iota
	// LogJSON is one JSON object per line, written by slog's JSONHandler:
	// time (RFC 3339, UTC), level, msg, pid, then the event's fields.
	LogJSON
)

// ParseLogFormat reads --log-format's value: "text" or "json".
func ParseLogFormat(s string) (LogFormat, error) {
	switch s {
	case "text":
		return LogText, nil
	case "json":
		return LogJSON, nil
	}
	return 0, fmt.Errorf("want text or json")
}

func (f LogFormat) String() string {
	if f == LogJSON {
		return "json"
	}
	return "text"
}
