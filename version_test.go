package main

import (
	"runtime/debug"
	"testing"
)

// TestBuildVersion: a build with no -X main.version names itself from
// its build info: the release tag, else the commit (dirty or not), else
// the pseudo-version, else "dev".
func TestBuildVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	cases := []struct {
		name string
		info *debug.BuildInfo // nil: no build info
		want string
	}{
		{"no build info", nil, "dev"},
		{"go build -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"go install @commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129060948-0123456789ab"}}, "v0.0.0-20261129060948-0123456789ab"},
		{"go build, clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129060948-0123456789ab"}, Settings: vcs("false")}, "0123456789ab"},
		{"go build, dirty checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129060948-0123456789ab+dirty"}, Settings: vcs("true")}, "0123456789ab-dirty"},
		{"go build, Go before 1.24", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, "0123456789ab-dirty"},
		{"go build at a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: vcs("false")}, "v1.2.3"},
		{"go build at a tag, dirty", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3+dirty"}, Settings: vcs("true")}, "0123456789ab-dirty"},
	}
	for _, c := range cases {
		got := buildVersion(func() (*debug.BuildInfo, bool) { return c.info, c.info != nil })
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
