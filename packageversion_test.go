package main_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// apkVersion is apk-tools 2's version grammar (src/version.c):
// digit{.digit}...{letter}{_suffix{#}}...{-r#}. apk-tools 3 adds {~hash},
// which 2 refuses, so it is left out. apk-tools is not in Debian, so the
// test checks the grammar itself.
var apkVersion = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*[a-z]?(_(alpha|beta|pre|rc|cvs|svn|git|hg|p)[0-9]*)*(-r[0-9]+)?$`)

// packageVersion runs packaging/version.sh, which make packages uses to
// turn tend's version into each format's; count is "" or the commit count
// of an untagged build.
func packageVersion(t *testing.T, version, format, count string) (string, error) {
	t.Helper()
	args := []string{version, format}
	if count != "" {
		args = append(args, count)
	}
	out, err := exec.Command("packaging/version.sh", args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestPackageVersions checks packaging/version.sh's table, that each
// result is valid in its format, and that the formats order builds as the
// tags do: an untagged build and a pre-release before the release, commits
// after a tag after it.
func TestPackageVersions(t *testing.T) {
	cases := []struct{ in, count, deb, apk string }{
		{"v1.2.0", "", "1.2.0", "1.2.0"},
		{"1.2.0", "", "1.2.0", "1.2.0"},
		{"v1.2.0-rc.1", "", "1.2.0~rc.1", "1.2.0_rc1"},
		{"v1.2.0-rc.1-3-gabc1234", "", "1.2.0~rc.1+git3.abc1234", "1.2.0_rc1_git3"},
		{"v1.2.0-3-gabc1234", "", "1.2.0+git3.abc1234", "1.2.0_git3"},
		{"v1.2.0-3-gabc1234-dirty", "", "1.2.0+git3.abc1234.dirty", "1.2.0_git3"},
		{"v1.2.0-dirty", "", "1.2.0+dirty", "1.2.0"},
		{"abc1234", "95", "0.0.0~git95.abc1234", "0.0.0_git95"},
		{"abc1234", "", "0.0.0~gitabc1234", "0.0.0_git"},
		{"abc1234-dirty", "95", "0.0.0~git95.abc1234+dirty", "0.0.0_git95"},
		{"dev", "", "0.0.0~dev", "0.0.0_git"},
	}
	_, dpkgErr := exec.LookPath("dpkg")
	for _, c := range cases {
		for _, f := range []struct{ format, want string }{{"deb", c.deb}, {"rpm", c.deb}, {"apk", c.apk}} {
			got, err := packageVersion(t, c.in, f.format, c.count)
			if err != nil || got != f.want {
				t.Errorf("version.sh %s %s %s = %q, %v; want %q", c.in, f.format, c.count, got, err, f.want)
			}
		}
		if !apkVersion.MatchString(c.apk + "-r1") {
			t.Errorf("%s-r1 is not an apk version", c.apk)
		}
		if dpkgErr == nil {
			if out, err := exec.Command("dpkg", "--validate-version", c.deb+"-1").CombinedOutput(); err != nil {
				t.Errorf("dpkg rejects %s-1: %s", c.deb, out)
			}
		}
	}
	for _, bad := range []string{"", "garbage", "v1.2", "v1.2.0-foo-bar", "1.2.0 "} {
		if got, err := packageVersion(t, bad, "deb", ""); err == nil {
			t.Errorf("version.sh %q deb = %q, want an error", bad, got)
		}
	}
	if got, err := packageVersion(t, "v1.2.0-foo", "apk", ""); err == nil {
		t.Errorf("version.sh v1.2.0-foo apk = %q, want an error: apk has no suffix foo", got)
	}
	if dpkgErr != nil {
		t.Log("dpkg is not installed: deb versions and their order not checked")
		return
	}
	// Ascending, as dpkg and rpm must order them. Snapshots before the
	// first tag are ordered by their commit count.
	order := [][2]string{{"def5678", "94"}, {"abc1234", "95"}, {"v0.9.0", ""}, {"v1.2.0-rc.1", ""},
		{"v1.2.0-rc.1-3-gabc1234", ""}, {"v1.2.0", ""}, {"v1.2.0-3-gabc1234", ""}, {"v1.2.0-12-gdef5678", ""}, {"v1.2.1", ""}}
	_, rpmErr := exec.LookPath("rpm")
	if rpmErr != nil {
		t.Log("rpm is not installed: rpm's order not checked")
	}
	for i := 1; i < len(order); i++ {
		lo, _ := packageVersion(t, order[i-1][0], "deb", order[i-1][1]) // checked in the table above
		hi, _ := packageVersion(t, order[i][0], "deb", order[i][1])
		if err := exec.Command("dpkg", "--compare-versions", lo, "lt", hi).Run(); err != nil {
			t.Errorf("dpkg does not order %s (%s) before %s (%s)", lo, order[i-1][0], hi, order[i][0])
		}
		if rpmErr != nil {
			continue
		}
		cmp, err := exec.Command("rpm", "--eval", `%{lua: print(rpm.vercmp("`+lo+`", "`+hi+`"))}`).Output()
		if err != nil || strings.TrimSpace(string(cmp)) != "-1" {
			t.Errorf("rpm does not order %s before %s: %q, %v", lo, hi, cmp, err)
		}
	}
}
