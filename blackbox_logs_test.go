package main_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// logLine is one JSON log line, decoded.
type logLine map[string]any

// parseJSONLog decodes every line of tend's stderr, failing the test on a
// line that is not one JSON object with time (RFC 3339, UTC), level, msg
// and pid, in that order. pid 0 takes any pid.
func parseJSONLog(t *testing.T, stderr string, pid int) []logLine {
	t.Helper()
	var out []logLine
	for _, line := range strings.Split(stderr, "\n") {
		if line == "" {
			continue
		}
		var o logLine
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("not a JSON object: %q: %v\n%s", line, err, stderr)
		}
		ts, _ := o["time"].(string)
		at, err := time.Parse(time.RFC3339, ts)
		if err != nil || !strings.HasSuffix(ts, "Z") || time.Since(at) > time.Minute || time.Until(at) > time.Second {
			t.Errorf("time %q is not now in RFC 3339 UTC (%v): %s", ts, err, line)
		}
		switch o["level"] {
		case "ERROR", "WARN", "INFO", "DEBUG":
		default:
			t.Errorf("level %v: %s", o["level"], line)
		}
		if msg, _ := o["msg"].(string); msg == "" {
			t.Errorf("no msg: %s", line)
		}
		if n, ok := o["pid"].(float64); !ok || (pid > 0 && n != float64(pid)) || n < 1 {
			t.Errorf("pid %v, want %d: %s", o["pid"], pid, line)
		}
		if !strings.HasPrefix(line, `{"time":`) || !(strings.Index(line, `"level":`) < strings.Index(line, `"msg":`) && strings.Index(line, `"msg":`) < strings.Index(line, `"pid":`)) {
			t.Errorf("keys not in the order time, level, msg, pid: %s", line)
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		t.Fatal("no log line")
	}
	return out
}

// find returns the first line whose msg contains s.
func find(lines []logLine, s string) logLine {
	for _, l := range lines {
		if msg, _ := l["msg"].(string); strings.Contains(msg, s) {
			return l
		}
	}
	return nil
}

// textLine is tini's format: "[tend PID] LEVEL: message".
var textLine = regexp.MustCompile(`^\[tend \d+\] (ERROR|WARN|INFO|DEBUG): `)

// TestDecidedOutcomesWarn: every outcome tend decides itself shows at the
// default verbosity as a warning, in text as in JSON (where it carries its
// fields): a liveness or startup probe stopping the app, a hook that times
// out or fails, SIGKILL at the grace period, and a drain that had to
// SIGKILL. Each case runs once per format; JSON comes from
// TEND_LOG_FORMAT.
func TestDecidedOutcomesWarn(t *testing.T) {
	ns := func(ms int) float64 { return float64(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name string
		args []string // the app is started after "ready" when term is set
		term bool     // send TERM once the app printed "ready"
		code int
		want map[string]logLine // message part -> the JSON line's fields
	}{
		{"liveness probe", []string{"--live-probe", "false", "--probe-period", "20ms", "--probe-failure-threshold", "2", "--", fakeappBin, "signals", "SIGTERM", "0"}, false, 75,
			map[string]logLine{"stop: liveness probe failed 2 times in a row": {"probe": "live", "probe_kind": "live", "code": float64(75), "error": "false: exit code 1"}}},
		{"startup probe", []string{"--startup-probe", "db=false", "--probe-period", "20ms", "--probe-failure-threshold", "1", "--", fakeappBin, "signals", "SIGTERM", "0"}, false, 75,
			map[string]logLine{"stop: startup probe db failed 1 times in a row": {"probe": "db", "probe_kind": "startup", "code": float64(75)}}},
		{"post-start timeout", []string{"--hook-timeout", "200ms", "--post-start", "sleep 5", "--", fakeappBin, "signals", "SIGTERM", "0"}, false, 69,
			map[string]logLine{
				"post-start failed after":        {"hook": "post-start", "error": "sleep 5: timed out after 200ms"},
				"stop: post-start failed; grace": {"hook": "post-start", "code": float64(69), "reason": "post-start failed"},
			}},
		{"pre-stop timeout", []string{"--hook-timeout", "200ms", "--pre-stop", "sleep 5", "--", fakeappBin, "signals", "SIGTERM", "0"}, true, 0,
			map[string]logLine{"pre-stop failed after": {"hook": "pre-stop", "error": "sleep 5: timed out after 200ms"}}},
		{"post-stop failure", []string{"--post-stop", "exit 3", "--", fakeappBin, "exit", "0"}, false, 0,
			map[string]logLine{"post-stop failed after": {"hook": "post-stop", "error": "exit 3: exit code 3"}}},
		{"SIGKILL at the grace period", []string{"--grace-period", "300ms", "--min-shutdown-window", "100ms", "--", fakeappBin, "ignore", "SIGTERM", "--", "signals", "none", "0"}, true, 137,
			map[string]logLine{"stop: grace period of 300ms expired: sending SIGKILL to the app": {"signal": "SIGKILL", "grace_period": ns(300)}}},
		{"drain SIGKILL", []string{"--drain-timeout", "300ms", "--", "sh", "-c", `"$FAKEAPP" daemon "$PIDFILE" && echo ready; exit 4`}, false, 4,
			map[string]logLine{"drain: 300ms expired; sent SIGKILL to every process in the namespace": {"signal": "SIGKILL", "drain_timeout": ns(300)}}},
	}
	for _, c := range cases {
		for _, format := range []string{"text", "json"} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				env := []string{"PIDFILE=" + filepath.Join(t.TempDir(), "daemon.pid")}
				if format == "json" {
					env = append(env, "TEND_LOG_FORMAT=json")
				}
				p := startTend(t, opts{pid1: true, env: env}, c.args...)
				if c.term {
					p.stdout.wait(t, "ready", 10*time.Second)
					p.signal(syscall.SIGTERM)
				}
				if code := p.wait(20 * time.Second); code != c.code {
					t.Fatalf("exit %d, want %d\n%s", code, c.code, p.stderr)
				}
				stderr := p.stderr.String()
				if format == "text" {
					for _, line := range strings.Split(stderr, "\n") {
						if m := textLine.FindStringSubmatch(line); m != nil && m[1] != "WARN" && m[1] != "ERROR" {
							t.Errorf("at the default verbosity, only warnings and errors: %s", line)
						}
					}
					for s := range c.want {
						if !strings.Contains(stderr, "] WARN: "+s) {
							t.Errorf("no warning %q at the default verbosity:\n%s", s, stderr)
						}
					}
					return
				}
				lines := parseJSONLog(t, stderr, 1)
				for s, fields := range c.want {
					l := find(lines, s)
					if l == nil || l["level"] != "WARN" {
						t.Errorf("no WARN line with %q:\n%s", s, stderr)
						continue
					}
					for k, v := range fields {
						if l[k] != v {
							t.Errorf("%q: %s is %#v, want %#v", s, k, l[k], v)
						}
					}
				}
				for _, l := range lines {
					if l["level"] != "WARN" && l["level"] != "ERROR" {
						t.Errorf("at the default verbosity, only warnings and errors: %v", l)
					}
				}
			})
		}
	}
}

// TestJSONLogVerbose: with -vv every line is JSON too, and the events carry
// their fields: the app's exit code on its exit line, the probe on a probe
// failure, the signal on a forward, phases on a transition.
func TestJSONLogVerbose(t *testing.T) {
	// The probe fails once the app has set its TERM trap (and made F).
	f := filepath.Join(t.TempDir(), "F")
	code, _, stderr := runTend(t, opts{pid1: true}, "-vv", "--log-format", "json",
		"--live-probe", "api=test ! -e "+f, "--probe-period", "20ms", "--probe-failure-threshold", "1",
		"--", "sh", "-c", `trap 'exit 3' TERM; touch `+f+`; while :; do sleep 0.05; done`)
	if code != 75 {
		t.Fatalf("want 75, got %d\n%s", code, stderr)
	}
	lines := parseJSONLog(t, stderr, 1)
	for _, c := range []struct {
		msg    string
		level  string
		fields logLine
	}{
		{"liveness probe api attempt failed", "DEBUG", logLine{"probe": "api", "probe_kind": "live", "error": "test ! -e " + f + ": exit code 1"}},
		{"liveness probe api is now failing", "INFO", logLine{"probe": "api", "passing": false}},
		{"stop: liveness probe api failed", "WARN", logLine{"probe": "api", "code": float64(75)}},
		{"stop: sending SIGTERM to the app", "INFO", logLine{"signal": "SIGTERM"}},
		{"forwarded SIGTERM to pid", "DEBUG", logLine{"signal": "SIGTERM"}},
		{") exited with code 3 after", "INFO", logLine{"code": float64(3)}},
		{"phase running -> stopping", "INFO", logLine{"from": "running", "phase": "stopping"}},
	} {
		l := find(lines, c.msg)
		if l == nil || l["level"] != c.level {
			t.Errorf("no %s line with %q:\n%s", c.level, c.msg, stderr)
			continue
		}
		for k, v := range c.fields {
			if l[k] != v {
				t.Errorf("%q: %s is %#v, want %#v", c.msg, k, l[k], v)
			}
		}
		if c.msg == ") exited with code 3 after" {
			if _, ok := l["app_pid"].(float64); !ok {
				t.Errorf("the exit line lacks app_pid: %v", l)
			}
			if d, ok := l["duration"].(float64); !ok || d <= 0 {
				t.Errorf("the exit line's duration (ns): %v", l)
			}
		}
	}
}

// TestJSONSetUpError: a set-up failure after the flags are read (here a
// program that does not exist) is one JSON line too; a bad --log-format
// itself is a usage error in text.
func TestJSONSetUpError(t *testing.T) {
	code, _, stderr := runTend(t, opts{}, "-s", "--log-format", "json", "--", "/nonexistent/app")
	if code != 127 {
		t.Fatalf("want 127, got %d\n%s", code, stderr)
	}
	lines := parseJSONLog(t, stderr, 0)
	if len(lines) != 1 || lines[0]["level"] != "ERROR" || !strings.Contains(lines[0]["msg"].(string), "/nonexistent/app") {
		t.Fatalf("want one ERROR line naming the program:\n%s", stderr)
	}
	code, _, stderr = runTend(t, opts{env: []string{"TEND_LOG_FORMAT=yaml"}}, "-s", "true")
	if code != 1 || !textLine.MatchString(stderr) || !strings.Contains(stderr, `invalid --log-format value "yaml"`) {
		t.Fatalf("want exit 1 and a usage line, got %d\n%s", code, stderr)
	}
}
