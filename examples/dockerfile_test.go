package examples

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, its continuation lines joined.
type instruction struct {
	cmd, args string
	line      int
}

// parseDockerfile splits a Dockerfile into instructions: comments and blank
// lines dropped, lines ending in a backslash joined to the next.
func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(l)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if s, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args), line: start})
		cur.Reset()
	}
	return out
}

// fullReference matches an image reference that names its registry (a
// host with a dot or a port, or localhost) and a tag or digest, such as
// docker.io/library/golang:1.26: podman pulls it with no registries.conf
// alias, where a short name like golang:1.26 is refused.
var fullReference = regexp.MustCompile(`^([a-z0-9-]+\.[a-z0-9.-]+(:[0-9]+)?|[a-z0-9-]+:[0-9]+|localhost)/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[0-9a-f]{64})$`)

func TestFullReference(t *testing.T) {
	for ref, want := range map[string]bool{
		"docker.io/library/golang:1.26":            true,
		"quay.io/podman/stable:v5":                 true,
		"localhost/tend:dev":                       true,
		"registry.local:5000/tend:1":               true,
		"golang:1.26":                              false,
		"library/golang:1.26":                      false,
		"docker.io/library/golang":                 false, // no tag: latest, whatever that is
		"golang@sha256:" + strings.Repeat("0", 64): false,
	} {
		if got := fullReference.MatchString(ref); got != want {
			t.Errorf("%s: full reference %v, want %v", ref, got, want)
		}
	}
}

// TestDockerfileNamesBaseImagesInFull checks, without building, that every
// FROM in the Dockerfile is scratch, an earlier stage, or a fully named
// image (the from-source target cannot be pulled here, so it is not
// built); that the golang image's tag matches go.mod's Go version; and that
// both targets that ship an image carry the org.opencontainers.image.*
// labels, the variable ones from build args.
func TestDockerfileNamesBaseImagesInFull(t *testing.T) {
	ins := parseDockerfile(t, "../Dockerfile")
	goVersion := goModVersion(t)
	stages := map[string]bool{}
	var targets [][]instruction // the instructions of each stage
	for _, in := range ins {
		if in.cmd != "FROM" {
			if len(targets) > 0 {
				targets[len(targets)-1] = append(targets[len(targets)-1], in)
			}
			continue
		}
		f := strings.Fields(in.args)
		for len(f) > 0 && strings.HasPrefix(f[0], "--") {
			f = f[1:] // --platform=...
		}
		if len(f) == 0 {
			t.Fatalf("Dockerfile:%d: FROM with no image", in.line)
		}
		image := f[0]
		switch {
		case image == "scratch", stages[image]:
		case !fullReference.MatchString(image):
			t.Errorf("Dockerfile:%d: FROM %s: name the image in full (registry/repository:tag), as podman refuses short names", in.line, image)
		case strings.Contains(image, "/golang:"):
			if tag := image[strings.LastIndex(image, ":")+1:]; !strings.HasPrefix(goVersion+".", tag+".") {
				t.Errorf("Dockerfile:%d: FROM %s does not match go.mod's go %s", in.line, image, goVersion)
			}
		}
		if len(f) == 3 && strings.EqualFold(f[1], "AS") {
			stages[f[2]] = true
		}
		targets = append(targets, []instruction{in})
	}
	// The targets that ship an image: prebuilt, and the last (default) one.
	var shipped [][]instruction
	for _, st := range targets {
		if strings.HasSuffix(st[0].args, " AS prebuilt") {
			shipped = append(shipped, st)
		}
	}
	if len(shipped) != 1 || len(targets) < 2 {
		t.Fatalf("want a prebuilt target and a default one, got %d stages", len(targets))
	}
	shipped = append(shipped, targets[len(targets)-1])
	for _, st := range shipped {
		labels := map[string]string{}
		args := map[string]bool{}
		for _, in := range st {
			switch in.cmd {
			case "ARG":
				name, _, _ := strings.Cut(in.args, "=")
				args[name] = true
			case "LABEL":
				for _, m := range regexp.MustCompile(`([a-z.]+)="([^"]*)"`).FindAllStringSubmatch(in.args, -1) {
					labels[m[1]] = m[2]
				}
			}
		}
		for key, arg := range map[string]string{"source": "SOURCE", "version": "VERSION", "revision": "REVISION", "licenses": "LICENSES", "title": "", "description": ""} {
			v, ok := labels["org.opencontainers.image."+key]
			switch {
			case !ok || v == "":
				t.Errorf("Dockerfile:%d: stage has no org.opencontainers.image.%s label", st[0].line, key)
			case arg != "" && (v != "${"+arg+"}" || !args[arg]):
				t.Errorf("Dockerfile:%d: org.opencontainers.image.%s is %q; want it from the build arg ${%s}, declared in the stage", st[0].line, key, v, arg)
			}
		}
	}
}

// goModVersion is the go directive of the module's go.mod, e.g. 1.26.8.
func goModVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go ([0-9.]+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}
