#!/usr/bin/env bash
# build.sh RELEASE_DIR MAN_PAGE VERSION ARCH... wraps each release binary
# RELEASE_DIR/tend-linux-ARCH in a .deb, .rpm and .apk written to
# RELEASE_DIR, each installing /usr/bin/tend and MAN_PAGE (roff, from make
# man) as /usr/share/man/man1/tend.1.gz, then rewrites RELEASE_DIR's
# SHA256SUMS to cover the binaries and the packages. make packages runs it.
#
# nfpm runs through `go run` at a fixed version, so it needs no install and
# leaves go.mod alone (v2.48.0 is not on the module proxy here). The
# packages are unsigned: apk add needs --allow-untrusted.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 RELEASE_DIR MAN_PAGE VERSION ARCH..." >&2; exit 2; }
dir=$1 man=$2 version=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
GO=${GO:-go}
NFPM=${NFPM:-github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.44.0}
export PKG_MAINTAINER=${PKG_MAINTAINER:-tend maintainers <https://github.com/tend-init/tend/issues>}

# Same inputs, same packages: nfpm stamps files with SOURCE_DATE_EPOCH, here
# the commit's time, and gzip -n leaves out the name and time.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
gzip -9n <"$man" >"$stage/tend.1.gz"
export PKG_MAN=$stage/tend.1.gz
export PKG_LICENSE=$(cd "$here/.." && pwd)/LICENSE # nfpm refuses a path with ..

# Map the version for every format before building anything, so a version
# that one format cannot hold fails at once. A build before the first tag
# is ordered by its commit count (see version.sh).
count=""
if [[ ${version%-dirty} =~ ^[0-9a-f]{4,40}$ ]]; then
	# Empty when git or the commit is missing: the version then has no count.
	count=$(git -C "$here" rev-list --count "${version%-dirty}" 2>/dev/null || true)
fi
declare -A pkgver
for format in deb rpm apk; do
	pkgver[$format]=$("$here/version.sh" "$version" "$format" $count)
done

rm -f "$dir"/*.deb "$dir"/*.rpm "$dir"/*.apk
for arch in "$@"; do
	export PKG_BIN=$dir/tend-linux-$arch
	[ -x "$PKG_BIN" ] || { echo "$0: no $PKG_BIN: run make release first" >&2; exit 1; }
	# nfpm names 32-bit ARM by its version; make release builds GOARM=7.
	case $arch in
	arm) export PKG_ARCH=arm7 ;;
	*) export PKG_ARCH=$arch ;;
	esac
	for format in deb rpm apk; do
		PKG_VERSION=${pkgver[$format]} "$GO" run "$NFPM" package --config "$here/nfpm.yaml" \
			--packager "$format" --target "$dir/"
	done
done
cd "$dir"
sha256sum tend-linux-* *.deb *.rpm *.apk >SHA256SUMS
cat SHA256SUMS
