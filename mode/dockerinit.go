package mode

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/tend-init/tend/config"
)

// The docker-init mode: tend installed as Docker's init (dockerd's
// --init-path, or the docker-init Docker ships beside dockerd) is tini to
// Docker: `docker run --init` runs `docker-init -- CMD`, which tend's own
// command line reads, and `docker info` runs `docker-init --version`,
// which must print tini's line.

// DockerInitMode reports whether tend runs as docker-init: the basename
// of argv[0].
func DockerInitMode(args []string, _ config.LookupEnv) ([]string, bool) {
	return args, len(args) > 0 && filepath.Base(args[0]) == "docker-init"
}

var dockerInitMode = Mode{Name: "docker-init", Selects: DockerInitMode,
	Parse: func(args []string, env config.LookupEnv, b Build, stdout, stderr io.Writer) (Task, error) {
		// tini.c (parse_args): --version only as the only argument.
		if len(args) == 2 && args[1] == "--version" {
			_, _ = io.WriteString(stdout, DockerInitVersion(b)) // stdout gone: nothing to tell
			return Task{}, nil
		}
		return tendMode.Parse(args, env, b, stdout, stderr)
	}}

// DockerInitVersion is tend's version as tini prints it, "tini version
// 0.19.0 - git.de40ad0", the one form Docker reads: moby's
// parseInitVersion (daemon/info_unix.go) splits the line at " - ", takes
// the version after "tini version " and the commit from "git.X" when X
// has no dot, and warns "failed to retrieve docker-init version: unknown
// output format" for anything else. catatonit prints "tini version
// 0.1.7_catatonit" for the same reason (catatonit.c, version()). A
// leading v is dropped, as tini's own has none (an older moby prefixed
// one); the commit is left out when the build does not know it.
func DockerInitVersion(b Build) string {
	clean := func(s string) string {
		s = strings.Join(strings.Fields(s), "-") // no " - ", no newline
		return strings.ReplaceAll(s, "\x00", "")
	}
	v := strings.TrimPrefix(clean(b.Version), "v")
	if v == "" {
		v = "dev"
	}
	line := "tini version " + v
	if c := strings.ReplaceAll(clean(b.Commit), ".", ""); c != "" {
		line += " - git." + c
	}
	return line + "\n"
}
