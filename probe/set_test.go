package probe

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tend-init/tend/health"
)

var errDown = errors.New("status 503")

// attempt is one result fed to a Set: check idx, err nil for a pass.
type attempt struct {
	idx   int
	err   error
	pause bool
}

// TestSetObserve: what each attempt changed, as the machine acts on it:
// startup gates the others and completes once every startup check has
// passed once; thresholds flip liveness and readiness; in pause mode a
// check that never passed is not judged; ErrUnknown is counted, not
// judged.
func TestSetObserve(t *testing.T) {
	p := Params{FailureThreshold: 2, SuccessThreshold: 1}
	unknown := unknownError{"fork: resource temporarily unavailable"}
	cases := []struct {
		name    string
		members []Member
		steps   []attempt
		want    []Change
	}{
		{
			name:    "two startup checks: done at the second's first pass, once",
			members: []Member{{Startup, "a", p}, {Startup, "b", p}, {Live, "live", p}},
			steps:   []attempt{{0, nil, false}, {0, nil, false}, {1, errDown, false}, {1, nil, false}, {1, nil, false}},
			want: []Change{{FirstPass: true, Passing: true}, {Passing: true}, {Passing: true},
				{FirstPass: true, StartupDone: true, Passing: true}, {Passing: true}},
		},
		{
			name:    "startup failing its threshold flips to failing",
			members: []Member{{Startup, "startup", p}},
			steps:   []attempt{{0, errDown, false}, {0, errDown, false}},
			want:    []Change{{Passing: true}, {Flipped: true}},
		},
		{
			name:    "liveness: passing until the threshold, then back",
			members: []Member{{Live, "live", p}},
			steps:   []attempt{{0, errDown, false}, {0, errDown, false}, {0, errDown, false}, {0, nil, false}},
			want:    []Change{{Passing: true}, {Flipped: true}, {}, {FirstPass: true, Flipped: true, Passing: true}},
		},
		{
			name:    "readiness starts failing: its first pass flips it",
			members: []Member{{Ready, "db", p}},
			steps:   []attempt{{0, errDown, false}, {0, nil, false}, {0, nil, false}},
			want:    []Change{{}, {FirstPass: true, Flipped: true, Passing: true}, {Passing: true}},
		},
		{
			name:    "pause mode: failures before the first pass are not judged",
			members: []Member{{Live, "live", p}},
			steps:   []attempt{{0, errDown, true}, {0, errDown, true}, {0, errDown, true}, {0, nil, true}, {0, errDown, true}, {0, errDown, true}},
			want:    []Change{{Passing: true}, {Passing: true}, {Passing: true}, {FirstPass: true, Passing: true}, {Passing: true}, {Flipped: true}},
		},
		{
			name:    "unknown: counted, never fed to the threshold",
			members: []Member{{Live, "live", p}},
			steps:   []attempt{{0, unknown, false}, {0, unknown, false}, {0, unknown, false}, {0, errDown, false}},
			want:    []Change{{Unknown: true, Passing: true}, {Unknown: true, Passing: true}, {Unknown: true, Passing: true}, {Passing: true}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSet(c.members)
			for i, a := range c.steps {
				if got := s.Observe(a.idx, a.err, a.pause); got != c.want[i] {
					t.Errorf("step %d: %+v, want %+v", i, got, c.want[i])
				}
			}
		})
	}
}

// TestSetFirst: the startup checks run first and alone, once each; without
// them the others run at once and nothing is pending.
func TestSetFirst(t *testing.T) {
	p := Params{FailureThreshold: 1, SuccessThreshold: 1}
	s := NewSet([]Member{{Ready, "db", p}, {Startup, "startup", p}, {Live, "live", p}})
	if idx, once := s.First(); !reflect.DeepEqual(idx, []int{1}) || !once || !s.StartupPending() {
		t.Fatalf("with a startup check: First %v %v, pending %v", idx, once, s.StartupPending())
	}
	if got := s.Main(); !reflect.DeepEqual(got, []int{0, 2}) {
		t.Fatalf("Main %v", got)
	}
	if ch := s.Observe(1, nil, false); !ch.StartupDone || s.StartupPending() {
		t.Fatalf("after the startup check passed: %+v, pending %v", ch, s.StartupPending())
	}
	s = NewSet([]Member{{Ready, "db", p}, {Live, "live", p}})
	if idx, once := s.First(); !reflect.DeepEqual(idx, []int{0, 1}) || once || s.StartupPending() {
		t.Fatalf("without: First %v %v, pending %v", idx, once, s.StartupPending())
	}
}

// TestSetReasons: the words of /readyz, /livez and their ?verbose lists,
// and the counts of /metrics.
func TestSetReasons(t *testing.T) {
	p := Params{FailureThreshold: 1, SuccessThreshold: 1}
	s := NewSet([]Member{{Ready, "ready", p}, {Live, "api", p}, {Startup, "startup", p}})
	if got := s.NotReady(true); got != "not ready: waiting for the app: readiness probe not passed yet" {
		t.Errorf("pause, never passed: %q", got)
	}
	if got := s.NotReady(false); got != "not ready: readiness probe not passed yet" {
		t.Errorf("never attempted: %q", got)
	}
	s.Observe(0, errors.New("status 500\nx"), false)
	if got := s.NotReady(false); got != `not ready: readiness probe failing: status 500\nx` {
		t.Errorf("failing: %q", got)
	}
	if got := s.NotLive(); got != "" {
		t.Errorf("live and startup passing: %q", got)
	}
	s.Observe(1, errDown, true) // pause, never passed: not judged
	if got := s.NotLive(); got != "" {
		t.Errorf("a failure before the first pass: %q", got)
	}
	want := []health.CheckStatus{{Name: "ready", Kind: "ready", Detail: `not started: status 500\nx`}, {Name: "api", Kind: "live", Up: true, Detail: "not started: status 503"},
		{Name: "startup", Kind: "startup", Detail: "not passed yet"}}
	if got := s.Statuses(true); !reflect.DeepEqual(got, want) {
		t.Errorf("statuses\n got %+v\nwant %+v", got, want)
	}
	s.Observe(1, nil, false)
	s.Observe(1, errDown, false)
	if got := s.NotLive(); got != "not live: liveness probe api failing: status 503" {
		t.Errorf("liveness failing: %q", got)
	}
	wantCounts := map[health.ProbeKey]uint64{{Probe: "ready", Kind: "ready", Result: "failure"}: 1,
		{Probe: "api", Kind: "live", Result: "failure"}: 2, {Probe: "api", Kind: "live", Result: "success"}: 1}
	got := s.Results()
	if !reflect.DeepEqual(got, wantCounts) {
		t.Errorf("results %v, want %v", got, wantCounts)
	}
	got[health.ProbeKey{}] = 1 // a copy: the Set's own counts are untouched
	if len(s.Results()) != len(wantCounts) {
		t.Error("Results shares its map")
	}
}

// TestSetLabel: a check's name in messages.
func TestSetLabel(t *testing.T) {
	s := NewSet([]Member{{Kind: Live, Name: "live"}, {Kind: Ready, Name: "db"}, {Kind: Startup, Name: "startup"}, {Kind: Startup, Name: "warm"}})
	var got []string
	for i := range 4 {
		got = append(got, s.Label(i))
	}
	if want := "liveness probe|readiness probe db|startup probe|startup probe warm"; strings.Join(got, "|") != want {
		t.Fatalf("labels %q, want %q", strings.Join(got, "|"), want)
	}
	if got := fmt.Sprint(Startup, Ready, Live, None); got != "startup ready live probe(0)" {
		t.Fatalf("kinds %q", got)
	}
}

// TestReasonEscaped: a check's error reaches /readyz's one-line reason with
// every control byte escaped, as the text log shows it, not only the line
// breaks.
func TestReasonEscaped(t *testing.T) {
	got := oneLineErr(errors.New("status 500: \x1b[2J\x00\t\u2028x\ny"))
	if want := `status 500: \x1b[2J\x00\t\u2028x\ny`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
