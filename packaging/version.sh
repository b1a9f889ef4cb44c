#!/usr/bin/env bash
# version.sh VERSION FORMAT [COUNT] prints the package version that FORMAT
# (deb, rpm or apk) gets for tend's VERSION, the `git describe --tags
# --always --dirty` string that tend --version prints. COUNT is the number
# of commits up to an untagged VERSION (git rev-list --count HASH), which
# orders snapshot builds; build.sh passes it. The three formats order
# versions differently, so one string cannot serve all three:
#
#   VERSION                   deb and rpm                  apk
#   v1.2.0                    1.2.0                        1.2.0
#   v1.2.0-rc.1               1.2.0~rc.1                   1.2.0_rc1
#   v1.2.0-3-gabc1234         1.2.0+git3.abc1234           1.2.0_git3
#   v1.2.0-3-gabc1234-dirty   1.2.0+git3.abc1234.dirty     1.2.0_git3
#   abc1234, COUNT 95         0.0.0~git95.abc1234          0.0.0_git95
#   abc1234 (no COUNT)        0.0.0~gitabc1234             0.0.0_git
#   abc1234-dirty, COUNT 95   0.0.0~git95.abc1234+dirty    0.0.0_git95
#   dev (no git)              0.0.0~dev                    0.0.0_git
#
# "~" sorts before what it follows in dpkg and rpm, so a snapshot before
# the first tag or a pre-release never outranks a release; "+gitN" sorts
# after its tag. apk orders "_alpha", "_beta", "_pre" and "_rc" before the
# release and "_gitN" after it, and apk-tools 2 (Alpine up to now) has no
# place for a commit hash or "dirty" (apk-tools 3's "~HASH" is refused by
# 2), so apk carries the count alone. A dirty tree should not be shipped.
# Anything else is an error, rather than a package that sorts wrongly.
set -euo pipefail
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 VERSION deb|rpm|apk [COUNT]" >&2; exit 2; }
v=$1 format=$2 count=${3:-}
case $format in deb | rpm | apk) ;; *) echo "$0: unknown format $format" >&2; exit 2 ;; esac
[[ $count =~ ^[0-9]*$ ]] || { echo "$0: COUNT '$count' is not a number" >&2; exit 2; }

dirty=""
if [[ $v == *-dirty ]]; then dirty=1; v=${v%-dirty}; fi
hex='[0-9a-f]{4,40}'
if [[ $v =~ ^v?([0-9]+\.[0-9]+\.[0-9]+)(-([0-9A-Za-z.]+))?(-([0-9]+)-g($hex))?$ ]]; then
	base=${BASH_REMATCH[1]} pre=${BASH_REMATCH[3]} n=${BASH_REMATCH[5]} hash=${BASH_REMATCH[6]}
elif [[ $v =~ ^($hex)$ ]]; then
	base=0.0.0 pre=git${count:+$count.}${BASH_REMATCH[1]} n="" hash=""
elif [[ $v == dev ]]; then
	base=0.0.0 pre=dev n="" hash=""
else
	echo "$0: cannot map version '$1' to a package version: want vX.Y.Z[-PRE][-N-gHASH][-dirty], a commit hash or dev" >&2
	exit 1
fi

if [ "$format" != apk ]; then
	out=$base
	[ -z "$pre" ] || out+="~$pre"
	post=""
	[ -z "$n" ] || post="git$n.$hash"
	[ -z "$dirty" ] || post+="${post:+.}dirty"
	[ -z "$post" ] || out+="+$post"
	echo "$out"
	exit 0
fi

out=$base
case $pre in
"") ;;
dev) out+=_git ;;
git*) out+="_git$count" ;;
*)
	# A pre-release tag must read as one of apk's own: alpha, beta, pre or
	# rc, with an optional number (rc.1, rc1).
	if [[ $pre =~ ^(alpha|beta|pre|rc)\.?([0-9]*)$ ]]; then
		out+="_${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
	else
		echo "$0: apk has no form for pre-release '$pre': tag it alpha, beta, pre or rc, with an optional number" >&2
		exit 1
	fi
	;;
esac
[ -z "$n" ] || out+="_git$n"
echo "$out"
