package main

import (
	"runtime/debug"
	"strings"
)

// version is tend's version: make build and the Dockerfile set it with
// -ldflags "-X main.version=..." (packaging/gobuild.sh); any other build
// takes it from its build info in init (buildVersion). -X works only on a
// variable with no initialiser or a constant one, hence the init.
var version string

// commit is the revision tend was built from, short, as tini's version
// line carries it (mode.DockerInitVersion); "" when unknown.
var commit string

func init() {
	if version == "" {
		version = buildVersion(debug.ReadBuildInfo)
	}
	commit = buildCommit(version, debug.ReadBuildInfo)
}

// buildCommit is the commit the build info recorded (vcs.revision, its
// first 7 hex digits, as tini's "git.de40ad0"), else the one a version
// names: git describe's "-gHEX" (make build's VERSION), or a version that
// is itself a revision (buildVersion's); "" when neither does.
func buildCommit(version string, read func() (*debug.BuildInfo, bool)) string {
	if info, ok := read(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				return s.Value[:7]
			}
		}
	}
	v := strings.TrimSuffix(version, "-dirty")
	if i := strings.LastIndex(v, "-g"); i >= 0 {
		v = v[i+2:]
	}
	if len(v) < 7 || strings.Trim(v, "0123456789abcdef") != "" {
		return ""
	}
	return v[:7]
}

// buildVersion is the version cmd/go recorded: a release's tag (`go
// install github.com/tend-init/tend@vX.Y.Z`), else the commit a
// `go build` in a checkout was made from (its first 12 hex digits, as a Go
// pseudo-version shows it), with "-dirty" for uncommitted changes, as git
// describe --dirty, else the module's pseudo-version (go install @COMMIT);
// "dev" when neither is known (-buildvcs=false, a linked
// git worktree: golang/go#58218, or a tarball).
func buildVersion(read func() (*debug.BuildInfo, bool)) string {
	info, ok := read()
	if !ok {
		return "dev"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	switch v := info.Main.Version; {
	case strings.HasPrefix(v, "v") && !strings.ContainsAny(v, "-+"):
		return v // a release: go install @vX.Y.Z, or a clean checkout at its tag
	case rev != "":
		return rev[:min(len(rev), 12)] + dirty
	case info.Main.Version != "" && info.Main.Version != "(devel)":
		return info.Main.Version
	}
	return "dev"
}
