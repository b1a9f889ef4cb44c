package main_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// pkgArch is each release architecture's name in the .deb, .rpm and .apk.
// An architecture that make release gains must be added here, so that its
// packages are checked against the name its distributions use.
var pkgArch = map[string][3]string{
	"amd64":   {"amd64", "x86_64", "x86_64"},
	"arm64":   {"arm64", "aarch64", "aarch64"},
	"arm":     {"armhf", "armv7hl", "armv7"},
	"386":     {"i386", "i386", "x86"},
	"ppc64le": {"ppc64el", "ppc64le", "ppc64le"},
	"s390x":   {"s390x", "s390x", "s390x"},
	"riscv64": {"riscv64", "riscv64", "riscv64"},
}

// license is the SPDX name the .rpm and .apk carry (a .deb has no field).
const license = "Apache-2.0"

// pkgFiles is what every package installs, and licenseFile where each
// format keeps the license text (packaging/nfpm.yaml).
var (
	pkgFiles    = []string{"/usr/bin/tend", "/usr/share/man/man1/tend.1.gz"}
	licenseFile = map[string]string{"deb": "/usr/share/doc/tend/copyright", "rpm": "/usr/share/licenses/tend/LICENSE", "apk": "/usr/share/licenses/tend/LICENSE"}
)

// TestPackages checks what make packages built; make packages-test runs
// it with TEND_PACKAGES set to the release directory. Every architecture's
// .deb, .rpm and .apk must carry its release binary, byte for byte, and
// the man page, under the architecture's and the version's names for that
// format, and be listed in SHA256SUMS. The host's .deb is then installed
// with dpkg into a scratch root, and the installed tend and tend(1) used.
//
// It checks the built files rather than building packages itself: that
// needs nfpm (go run, a download on a fresh machine) and seven
// cross-builds, too much for every go test on a shared machine.
func TestPackages(t *testing.T) {
	dir := os.Getenv("TEND_PACKAGES")
	if dir == "" {
		t.Skip("TEND_PACKAGES is unset: make packages-test builds the packages and runs this test")
	}
	for _, tool := range []string{"dpkg", "dpkg-deb", "rpm", "rpm2cpio", "cpio", "tar", "mandoc", "groff", "man"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (make deps installs it)", tool)
		}
	}
	sums := checkSums(t, dir)
	bins, _ := filepath.Glob(filepath.Join(dir, "tend-linux-*")) // the pattern is valid
	if len(bins) == 0 {
		t.Fatalf("no tend-linux-* in %s: run make packages", dir)
	}
	// The host's binary says which version every package must carry.
	version := strings.TrimPrefix(output(t, filepath.Join(dir, "tend-linux-"+runtime.GOARCH), "--version"), "tend ")
	count := "" // an untagged build's commit count, as build.sh finds it
	if hash := strings.TrimSuffix(version, "-dirty"); regexp.MustCompile(`^[0-9a-f]{4,40}$`).MatchString(hash) {
		count = output(t, "git", "rev-list", "--count", hash)
	}
	want := map[string]string{}
	for _, f := range []string{"deb", "rpm", "apk"} {
		v, err := packageVersion(t, version, f, count)
		if err != nil {
			t.Fatalf("version.sh %s %s: %v: %s", version, f, err, v)
		}
		want[f] = v
	}
	for _, bin := range bins {
		arch := strings.TrimPrefix(filepath.Base(bin), "tend-linux-")
		names, ok := pkgArch[arch]
		if !ok {
			t.Errorf("make release built %s, which pkgArch lacks", arch)
			continue
		}
		binSum := sums[filepath.Base(bin)]
		t.Run(arch, func(t *testing.T) {
			deb := onePackage(t, dir, "tend_"+want["deb"]+"-1_"+names[0]+".deb", sums)
			for _, f := range []string{"Package:tend", "Version:" + want["deb"] + "-1", "Architecture:" + names[0]} {
				field, value, _ := strings.Cut(f, ":")
				if got := output(t, "dpkg-deb", "--field", deb, field); got != value {
					t.Errorf("%s: %s is %q, want %q", deb, field, got, value)
				}
			}
			payload(t, deb, binSum, "deb", strings.Fields(shell(t, `dpkg-deb --fsys-tarfile "$1" | tar -t | grep -v '/$' | sed 's/^\.//'`, deb)),
				`dpkg-deb --fsys-tarfile "$1" | tar -xO ./usr/bin/tend`, `dpkg-deb --fsys-tarfile "$1" | tar -xO .`+licenseFile["deb"])

			rpm := onePackage(t, dir, "tend-"+want["rpm"]+"-1."+names[1]+".rpm", sums)
			if got, w := output(t, "rpm", "-qp", "--qf", "%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE}", rpm), "tend "+want["rpm"]+" 1 "+names[1]+" "+license; got != w {
				t.Errorf("%s is %q, want %q", rpm, got, w)
			}
			payload(t, rpm, binSum, "rpm", strings.Fields(output(t, "rpm", "-qlp", rpm)),
				`rpm2cpio "$1" | cpio -i --quiet --to-stdout /usr/bin/tend`, `rpm2cpio "$1" | cpio -i --quiet --to-stdout `+licenseFile["rpm"])
			if got := output(t, "rpm", "-qp", "--licensefiles", rpm); got != licenseFile["rpm"] {
				t.Errorf("%s: rpm --licensefiles is %q, want %s marked %%license", rpm, got, licenseFile["rpm"])
			}

			apk := onePackage(t, dir, "tend_"+want["apk"]+"-r1_"+names[2]+".apk", sums)
			info := shell(t, `tar -xzOif "$1" .PKGINFO 2>/dev/null`, apk) // tar warns of apk's own pax keywords
			for _, line := range []string{"pkgname = tend", "pkgver = " + want["apk"] + "-r1", "arch = " + names[2], "license = " + license} {
				if !slices.Contains(strings.Split(info, "\n"), line) {
					t.Errorf("%s: .PKGINFO lacks %q:\n%s", apk, line, info)
				}
			}
			if !apkVersion.MatchString(want["apk"] + "-r1") {
				t.Errorf("%s-r1 is not an apk version", want["apk"])
			}
			var files []string
			for _, f := range strings.Fields(shell(t, `tar -tzif "$1" 2>/dev/null | grep -v '/$'`, apk)) {
				if f != ".PKGINFO" {
					files = append(files, "/"+f)
				}
			}
			payload(t, apk, binSum, "apk", files, `tar -xzOif "$1" usr/bin/tend 2>/dev/null`, `tar -xzOif "$1" `+licenseFile["apk"][1:]+` 2>/dev/null`)
		})
	}
	t.Run("dpkg-install", func(t *testing.T) {
		deb := onePackage(t, dir, "tend_"+want["deb"]+"-1_"+pkgArch[runtime.GOARCH][0]+".deb", sums)
		installDeb(t, deb, version)
	})
}

// installDeb installs deb with dpkg into a scratch root, runs the installed
// tend, renders its man page as man does, and removes the package again.
func installDeb(t *testing.T, deb, version string) {
	root := t.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The log stays in the scratch root, not the host's /var/log; a
	// minimal image's path-exclude of /usr/share/man is undone for the
	// page, which is part of what is tested.
	dpkg := []string{"--root=" + root, "--log=" + filepath.Join(root, "dpkg.log"), "--force-script-chrootless",
		"--path-include=/usr/share/man/man1/tend.1.gz"}
	if os.Geteuid() != 0 {
		dpkg = append(dpkg, "--force-not-root")
	}
	output(t, "dpkg", append(dpkg, "-i", deb)...)
	if got := output(t, "dpkg", "--root="+root, "-L", "tend"); !strings.Contains(got, "/usr/share/man/man1/tend.1.gz") {
		t.Errorf("dpkg -L tend lacks the man page:\n%s", got)
	}
	tend := filepath.Join(root, "usr/bin/tend")
	if got := output(t, tend, "--version"); got != "tend "+version {
		t.Errorf("installed tend --version = %q, want %q", got, "tend "+version)
	}
	output(t, tend, "--", "true") // not PID 1: tend warns on stderr, and exits with true's 0

	page := filepath.Join(root, "usr/share/man/man1/tend.1.gz")
	for _, mode := range []struct {
		path string
		perm os.FileMode
	}{{tend, 0o755}, {page, 0o644}} {
		if fi, err := os.Stat(mode.path); err != nil || fi.Mode().Perm() != mode.perm {
			t.Errorf("%s: %v, %v; want mode %v", mode.path, fi.Mode(), err, mode.perm)
		}
	}
	roff := shell(t, `gzip -dc "$1"`, page)
	if !strings.Contains(roff, `"tend `+strings.ReplaceAll(version, "-", `\-`)+`"`) {
		t.Errorf("the installed man page's header does not name tend %s:\n%.200s", version, roff)
	}
	if out := shell(t, `gzip -dc "$1" | mandoc -T lint -W warning 2>&1`, page); out != "" {
		t.Errorf("mandoc -T lint:\n%s", out)
	}
	// man -l formats it with groff as man itself does; --warnings sends
	// groff's warnings to stderr, and there must be none.
	man := `MANWIDTH=80 MANPAGER=cat man --warnings -l "$1"`
	rendered := shell(t, man+" 2>/dev/null", page)
	for _, w := range []string{"--grace-period", "TEND_GRACE_PERIOD", "EXIT STATUS", "--help"} {
		if !strings.Contains(rendered, w) {
			t.Errorf("man -l shows no %q:\n%s", w, rendered)
		}
	}
	if warned := shell(t, man+" 2>&1 >/dev/null", page); warned != "" {
		t.Errorf("man -l warned:\n%s", warned)
	}

	output(t, "dpkg", append(dpkg, "-r", "tend")...)
	for _, f := range pkgFiles {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s is left after dpkg -r tend", f)
		}
	}
}

// checkSums reads dir/SHA256SUMS, checks every file it lists, and that it
// lists every file in dir.
func checkSums(t *testing.T, dir string) map[string]string {
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read-only; a close error loses nothing
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha(b); got != sum {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, sum)
		}
		sums[name] = sum
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := sums[e.Name()]; !ok && e.Name() != "SHA256SUMS" {
			t.Errorf("SHA256SUMS lacks %s", e.Name())
		}
	}
	return sums
}

// onePackage is dir/name, which must exist and be in SHA256SUMS.
func onePackage(t *testing.T, dir, name string, sums map[string]string) string {
	t.Helper()
	if _, ok := sums[name]; !ok {
		got, _ := filepath.Glob(filepath.Join(dir, "tend*.*")) // the pattern is valid
		t.Fatalf("no %s in SHA256SUMS; the directory holds %v", name, got)
	}
	return filepath.Join(dir, name)
}

// payload checks a package's file list, that extract (a shell line, the
// package as $1) yields the release binary, and that license yields the
// LICENSE file.
func payload(t *testing.T, pkg, binSum, format string, files []string, extract, license string) {
	t.Helper()
	want := append(slices.Clone(pkgFiles), licenseFile[format])
	slices.Sort(want)
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("%s holds %v, want %v", filepath.Base(pkg), files, want)
	}
	if got := sha([]byte(shell(t, extract, pkg))); got != binSum {
		t.Errorf("%s's /usr/bin/tend is not the release binary (sha256 %s, want %s)", filepath.Base(pkg), got, binSum)
	}
	text, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if got := shell(t, license, pkg); strings.TrimSpace(got) != strings.TrimSpace(string(text)) {
		t.Errorf("%s's %s is not the LICENSE file (%d bytes, want %d)", filepath.Base(pkg), licenseFile[format], len(got), len(text))
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// output runs a command with a deadline and returns its trimmed stdout;
// it fails the test, with stderr, if the command fails.
func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// shell runs a shell line with arg as $1 and returns its untrimmed stdout.
func shell(t *testing.T, line, arg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-ec", line, "sh", arg)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s (with %s): %v\n%s", line, arg, err, stderr.String())
	}
	return string(out)
}
