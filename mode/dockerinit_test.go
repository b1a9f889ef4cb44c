package mode

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// mobyParseInitVersion is moby's parseInitVersion (daemon/info_unix.go,
// moby/moby master, 2024: "Output example from `docker-init --version`:
// tini version 0.18.0 - git.fec3683"), copied to check tend's line
// against the rules dockerd applies to `docker-init --version`.
func mobyParseInitVersion(v string) (version string, commit string, err error) {
	parts := strings.Split(v, " - ")
	if len(parts) >= 2 {
		gitParts := strings.Split(strings.TrimSpace(parts[1]), ".")
		if len(gitParts) == 2 && gitParts[0] == "git" {
			commit = gitParts[1]
		}
	}
	parts[0] = strings.TrimSpace(parts[0])
	if strings.HasPrefix(parts[0], "tini version ") {
		version = strings.TrimPrefix(parts[0], "tini version ")
	}
	if version == "" && commit == "" {
		err = errors.New("unknown output format: " + v)
	}
	return version, commit, err
}

// TestDockerInitVersion: `docker-init --version` prints one line that
// Docker's parser reads into tend's version and commit, whatever the
// build calls itself.
func TestDockerInitVersion(t *testing.T) {
	for _, c := range []struct {
		b               Build
		version, commit string
	}{
		{Build{Version: "v1.2.3", Commit: "abcdef1"}, "1.2.3", "abcdef1"},
		{Build{Version: "v0.9.0-3-gabcdef1-dirty", Commit: "abcdef1"}, "0.9.0-3-gabcdef1-dirty", "abcdef1"},
		{Build{Version: "dev"}, "dev", ""},
		{Build{}, "dev", ""},
		{Build{Version: "1 - git.x\nfoo", Commit: "a.b c"}, "1---git.x-foo", "ab-c"},
	} {
		line := DockerInitVersion(c.b)
		v, commit, err := mobyParseInitVersion(line)
		if err != nil || v != c.version || commit != c.commit || strings.Count(line, "\n") != 1 {
			t.Errorf("%+v: %q reads as %q %q %v; want %q %q", c.b, line, v, commit, err, c.version, c.commit)
		}
	}
	// The mode: --version alone, as tini takes it; anything else is tend's.
	var out strings.Builder
	m, args := Of([]string{"/usr/bin/docker-init", "--version"}, envOf())
	task, err := m.Parse(args, envOf(), Build{Version: "v2", Commit: "1234567"}, &out, io.Discard)
	if err != nil || task.Run != nil || task.Exit != 0 || out.String() != "tini version 2 - git.1234567\n" {
		t.Errorf("docker-init --version: %+v %v %q", task, err, out.String())
	}
	m, args = Of([]string{"docker-init", "--", "app", "--version"}, envOf())
	if task, err = m.Parse(args, envOf(), Build{}, io.Discard, io.Discard); err != nil || task.Run == nil || task.Run.Args[0] != "app" {
		t.Errorf("docker-init -- app: %+v %v", task, err)
	}
}
