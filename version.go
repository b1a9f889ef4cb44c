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

func init() {
	if version == "" {
		version = buildVersion(debug.ReadBuildInfo)
	}
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
