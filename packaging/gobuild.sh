#!/bin/sh
# gobuild.sh [go build flags] [-o OUT] [PKG]: tend's build settings, named
# once. make build, make release, make bench, the Dockerfile, bench/run.sh
# and the tests that build tend all run this script, so that what ships is
# what is tested (TestBuildsTurnAsyncPreemptionOff checks they do).
# VERSION (if set) becomes main.version; otherwise tend reads its version
# from the build info. GO names the go command; CGO_ENABLED defaults to 0
# (a static binary), and a -race build sets it to 1. POSIX sh: the
# Dockerfile's golang image runs it with its /bin/sh.
set -eu

# The cli build tags leave out urfave/cli's man-page and suggestion code,
# which tend never runs: 77,824 bytes (docs/performance.md).
TAGS=urfave_cli_no_docs,urfave_cli_no_suggest

# asyncpreemptoff=1: the Go runtime never sends itself SIGURG to preempt a
# goroutine, so every URG the dumb-init mode forwards is someone else's
# (signals/dumbinit.go). tend's goroutines block or call functions often,
# and with GOMAXPROCS=1 there is no other P to preempt for.
GODEBUGS=asyncpreemptoff=1

GO=${GO:-go}

# cmd/go passes its own -X runtime.godebugDefault (from go.mod's godebug
# lines, //go:debug directives and an old go line) before ours, and the last
# -X wins: a default it computed would be dropped silently. Refuse instead.
default=$("$GO" list -f '{{.DefaultGODEBUG}}' github.com/tend-init/tend)
if [ -n "$default" ]; then
	echo "gobuild.sh: cmd/go would set GODEBUG defaults ($default) that tend's -X runtime.godebugDefault=$GODEBUGS drops: add them to GODEBUGS in packaging/gobuild.sh and remove them from go.mod" >&2
	exit 1
fi

# main.godebug tells tend what its runtime was given: -trimpath keeps
# -ldflags out of the build info.
ldflags="-s -w -X runtime.godebugDefault=$GODEBUGS -X main.godebug=$GODEBUGS"
if [ -n "${VERSION:-}" ]; then
	ldflags="$ldflags -X main.version=$VERSION"
fi
CGO_ENABLED=${CGO_ENABLED:-0} exec "$GO" build -trimpath -tags "$TAGS" -ldflags "$ldflags" "$@"
