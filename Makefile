# tend's build, test and benchmark entry points. Everything runs on a fresh
# Debian machine with Go; `make deps` installs the Debian packages the tests
# and benchmarks use (as root, or through sudo).

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The build settings (tags, GODEBUG defaults, -ldflags) are named once, in
# packaging/gobuild.sh, which every build of tend runs: this one, the
# Dockerfile, bench/ and the tests.
GOBUILD   := GO=$(GO) ./packaging/gobuild.sh
OUT       ?= bin

FUZZTIME  ?= 8s

.PHONY: all build run test fuzz deps fakeapp release bench torture clean e2e grpc-test dumb-init-suite

all: build

build:
	VERSION=$(VERSION) $(GOBUILD) -o $(OUT)/tend .

fakeapp:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(OUT)/fakeapp ./testdata/fakeapp

# run: build tend and show it as PID 1 of a new PID namespace. The demo app
# hands 100 orphans to tend (which reaps them: -w logs each one), waits until
# none is left, and exits 0; tend passes its code on. make run fails with
# tend's own code if tend does not exit 0.
run: build fakeapp
	@unshare -pf --mount-proc $(OUT)/tend -v -w -- $(OUT)/fakeapp storm 100; code=$$?; \
	  if [ $$code -ne 0 ]; then echo "make run: tend exited with $$code: the demo failed" >&2; exit $$code; fi; \
	  echo "make run: tend reaped the 100 orphans the demo app left behind, and exited with the app's code, 0"

deps:
	./.ci/deps.sh

# test installs what a fresh machine lacks first (gcc for -race among it),
# then checks the module and the code, fuzzes, and runs every test with the
# race detector. Each step fails the run. A container test that this
# machine cannot run skips, and go test shows a passing package's skips
# only with -v: they are collected in TEND_SKIP_REPORT and printed after
# the run. -timeout 30m: examples/ builds tend for every release arch and
# several images, which on a cold build cache and a busy machine can pass
# go test's default 10 minutes.
test: deps
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(MAKE) --no-print-directory fuzz
	@skips=$$(mktemp); trap 'rm -f "$$skips"' EXIT; \
	echo "$(GO) test -race -count=1 -timeout 30m ./..."; \
	TEND_SKIP_REPORT=$$skips $(GO) test -race -count=1 -timeout 30m ./... && status=0 || status=$$?; \
	if [ -s "$$skips" ]; then echo "make test: these tests were SKIPPED (this machine could not run them):"; cat "$$skips"; fi; \
	exit $$status
	$(MAKE) --no-print-directory grpc-test
	$(MAKE) --no-print-directory dumb-init-suite

# grpc-test runs the built tend against grpc-go's reference health server
# (e2e/grpcapp): e2e/ is its own module, so tend's go.mod never gains
# grpc-go, and ./... above does not reach it. No kubelet needed.
grpc-test: build
	cd e2e && TEND=$(abspath $(OUT))/tend $(GO) test -race -count=1 ./grpcprobe/

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# fuzz runs every fuzz target for FUZZTIME; the seed corpora live in each
# package's testdata/fuzz and also run in plain `go test`. A failing
# target's log is printed; the log lives in a temporary file.
# A run whose only failure is a bare "context deadline exceeded", with no
# failing input written, is Go's fuzzing coordinator losing a race with its
# own -fuzztime deadline (golang/go#75804, fixed in Go 1.27, not in 1.26),
# which a busy machine makes likely: that run is tried again, up to
# FUZZ_TRIES runs in all. A finding ("Failing input written to", a seed
# that fails, any other error) fails at once.
FUZZ_TRIES ?= 3
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    try=1; \
	    while echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	      ! $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg >"$$log" 2>&1; do \
	      if [ $$try -lt $(FUZZ_TRIES) ] && ! grep -q 'Failing input written to' "$$log" && \
	        grep -A1 -e '^--- FAIL: ' "$$log" | grep -v -e '^--- FAIL: ' | grep -q -x -e '[[:space:]]*context deadline exceeded'; then \
	        echo "fuzz $$pkg $$t: \"context deadline exceeded\" and no failing input: the Go coordinator's own deadline race (golang/go#75804), not a finding; run $$try of $(FUZZ_TRIES), again"; \
	        try=$$((try + 1)); \
	      else \
	        cat "$$log"; exit 1; \
	      fi; \
	    done; \
	  done; \
	done

# release builds static binaries for the platforms tini ships for (arm is
# v7), with SHA256SUMS.
RELEASE_ARCHES := amd64 arm64 arm 386 ppc64le s390x riscv64
release:
	rm -rf $(OUT)/release && mkdir -p $(OUT)/release
	for arch in $(RELEASE_ARCHES); do \
	  VERSION=$(VERSION) GOOS=linux GOARCH=$$arch GOARM=7 $(GOBUILD) -o $(OUT)/release/tend-linux-$$arch . || exit 1; \
	done
	cd $(OUT)/release && sha256sum tend-linux-* > SHA256SUMS && cat SHA256SUMS

# BASE=REF (e.g. make bench BASE=main) also builds REF's tend as
# $(OUT)/tend-base and puts it beside this tree's in every figure: an A/B
# in the same interleaved run.
bench: build fakeapp
	@if [ -n "$(BASE)" ]; then \
	  d=$$(mktemp -d) && git archive "$(BASE)" | tar -x -C "$$d" && \
	  (cd "$$d" && VERSION=$$(git -C $(CURDIR) rev-parse --short $(BASE)) GO=$(GO) $(CURDIR)/packaging/gobuild.sh -o $(abspath $(OUT))/tend-base .); \
	  s=$$?; rm -rf "$$d"; exit $$s; fi
	$(if $(BASE),OLD=$(OUT)/tend-base) ./bench/run.sh

# torture runs every test named TestTorture* in every package with the
# issue's numbers (TEND_TORTURE=1: 2,000 apps, 10,000 orphans and signals, a
# 10-minute long run), then each fuzz target for 30 s, and prints a summary.
# A case joins by its name alone, so none can silently drop out.
# The 10,000-orphan storm needs more pids than the default pid_max (32768)
# leaves on a busy machine: raise it, as bench/run.sh does, and restore it.
torture: deps
	@mkdir -p $(OUT); rm -f $(OUT)/torture.md $(OUT)/torture.log
	old_pid_max=$$(cat /proc/sys/kernel/pid_max); \
	  echo 4194304 > /proc/sys/kernel/pid_max || echo "torture: cannot raise pid_max; the storm may hit it" >&2; \
	  TEND_TORTURE=1 TEND_TORTURE_SUMMARY=$(abspath $(OUT))/torture.md \
	  $(GO) test -count=1 -timeout 60m -run '^TestTorture' -v ./... > $(OUT)/torture.log 2>&1; \
	  status=$$?; \
	  echo $$old_pid_max > /proc/sys/kernel/pid_max; \
	  echo "| case | figure | target |"; echo "|---|---|---|"; cat $(OUT)/torture.md; echo; \
	  echo "| test | result |"; echo "|---|---|"; \
	  grep -E '^--- (PASS|FAIL|SKIP)' $(OUT)/torture.log | awk '{print "| " $$3 " | " $$2 " " $$4 " |"}'; \
	  $(MAKE) --no-print-directory fuzz FUZZTIME=30s; \
	  exit $$status

# e2e runs tend under a real kubelet (e2e/README.md), as root: it installs
# containerd, runc, podman and busybox-static if missing, builds the kubelet
# once (cached in /var/cache/tend-e2e), runs e2e/'s tests and restores the
# host. e2e/ is its own Go module, outside ./... here.
e2e:
	bash e2e/run.sh

clean:
	rm -rf $(OUT)

# image builds tend's multi-architecture image with podman: the Dockerfile's
# prebuilt target (no RUN step, so no emulation) once per RELEASE_ARCHES
# binary, each tagged IMAGE-ARCH, joined in the manifest list IMAGE (which
# must carry a tag), with the org.opencontainers.image.* labels from the
# build args. The build context is $(OUT)/release, which holds only the
# binaries; --layers=false keeps no intermediate image per LABEL step.
# PODMAN_FLAGS are podman's global flags (the tests pass theirs).
# image-check runs the test that builds it (into a temporary OUT, under a
# unique name) and checks the manifest, the labels and a run of the image.
IMAGE          ?= localhost/tend:$(VERSION)
IMAGE_SOURCE   ?= https://github.com/tend-init/tend
IMAGE_LICENSES ?= Apache-2.0
REVISION       ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
PODMAN         ?= podman
PODMAN_FLAGS   ?=

.PHONY: image image-check
image: release
	if $(PODMAN) $(PODMAN_FLAGS) manifest exists $(IMAGE); then $(PODMAN) $(PODMAN_FLAGS) manifest rm $(IMAGE); fi
	$(PODMAN) $(PODMAN_FLAGS) manifest create $(IMAGE)
	for arch in $(RELEASE_ARCHES); do \
	  platform=linux/$$arch; [ $$arch = arm ] && platform=linux/arm/v7; \
	  $(PODMAN) $(PODMAN_FLAGS) build --layers=false --platform $$platform --target prebuilt -f $(CURDIR)/Dockerfile \
	    --build-arg TEND_BINARY=tend-linux-$$arch \
	    --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) \
	    --build-arg SOURCE=$(IMAGE_SOURCE) --build-arg LICENSES=$(IMAGE_LICENSES) \
	    --manifest $(IMAGE) -t $(IMAGE)-$$arch $(OUT)/release || exit 1; \
	done
	$(PODMAN) $(PODMAN_FLAGS) manifest inspect $(IMAGE)

image-check: deps
	TEND_REQUIRE_CONTAINERS=1 $(GO) test -count=1 -run '^TestMultiArchImage$$' -v ./examples

# recipes builds the README's recipes (nginx, PostgreSQL, Redis, gunicorn, Node.js) as the
# README shows them, on a Debian bookworm root that examples/recipes/base.sh
# makes with debootstrap, and checks each with podman
# (examples/recipes_*_test.go). They build only with -tags recipes, so the
# `go test ./...` of make test never runs them. The base root's tarball
# (/var/cache/tend-recipes) is kept, keyed by base.sh and the package list:
# a warm run does not debootstrap, and imports it as
# localhost/tend-recipes-base:KEY into the tests' own podman store
# (examples/main_test.go). They use bin/tend, so make build comes first.
.PHONY: recipes
recipes: deps build
	TEND_REQUIRE_CONTAINERS=1 $(GO) test -tags recipes -count=1 -timeout 45m -run '^TestRecipe' -v ./examples

# packages wraps each release binary in a .deb, .rpm and .apk that install
# /usr/bin/tend and tend(1), and adds them to SHA256SUMS. nfpm runs through
# go run at a fixed version, so go.mod is untouched; packaging/version.sh
# maps VERSION to each format's version. man writes tend(1) from the flag
# table through config's TestManPage, which checks it first. packages-test checks
# every package and installs the host's .deb into a scratch root
# (TestPackages, which needs the built files: see package_test.go).
NFPM     := github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.44.0
MAN_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)
.PHONY: man packages packages-test
man:
	mkdir -p $(OUT)
	$(GO) test -count=1 -run '^TestManPage$$' ./config -args \
	  -man.out=$(abspath $(OUT))/tend.1 -man.version=$(VERSION) -man.date=$(MAN_DATE)

packages: release man
	GO=$(GO) NFPM=$(NFPM) ./packaging/build.sh $(OUT)/release $(OUT)/tend.1 $(VERSION) $(RELEASE_ARCHES)

packages-test: deps packages
	TEND_PACKAGES=$(abspath $(OUT))/release $(GO) test -count=1 -run '^TestPackages$$' -v .

# dumb-init-suite runs dumb-init's own pytest suite, vendored unchanged in
# testdata/dumb-init (README there), against tend installed as dumb-init:
# the suite calls `dumb-init` by name, so a copy named dumb-init leads
# PATH (a copy: test_working_directories runs realpath(dumb-init), which
# would turn a symlink back into tend, in tend's own mode). It then runs the same suite against Debian's /usr/bin/dumb-init and
# prints both counts; only tend's run decides the target's status. Then
# tests/test-zombies runs with each as PID 1 of a new PID namespace (root).
# DUMB_INIT_EXCUSED are --deselect arguments, each with its reason:
#   test_proxies_signals (4 cases) sends SIGPROF among the 25 signals and
#   waits for it forever; no Go program can receive SIGPROF (the runtime
#   keeps it for its profiler: docs/design.md has the proof), and tend's
#   TestDumbInitProxiesSignals sends the other 24 and URG the same way.
# pytest runs under `tini -s`: the suite counts a zombie as alive (/proc/PID
# exists), and the orphans dumb-init leaves are re-parented to the nearest
# subreaper, which must reap them at once; some machines' PID 1 (this
# one's, a VM agent) reaps late, and test_setsid_signals_entire_group
# then fails for Debian's dumb-init as for tend.
# As root, each run is a new PID namespace (unshare, tini its PID 1): what
# the suite leaves running (print_signals after a failed test) dies with
# the namespace, so nothing is signalled by name and no one else's process
# can be hit. Without root, leftovers stay, and the target says so.
DUMB_INIT_EXCUSED := $(foreach p,1-1 1-0 0-1 0-0,--deselect 'tests/proxies_signals_test.py::test_proxies_signals[$(p)]')
DUMB_INIT_PYTEST  := PYTHONDONTWRITEBYTECODE=1 timeout 900 $$ns tini -s -- /usr/bin/python3 -m pytest -p no:cacheprovider -q
dumb-init-suite: build
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	ns=; if [ "$$(id -u)" -eq 0 ]; then ns="unshare -pf --kill-child --mount-proc"; \
	else echo "dumb-init-suite: not root, so no PID namespace: a process the suite leaves running stays"; fi; \
	mkdir -p $$tmp/tend $$tmp/debian; \
	cp $(abspath $(OUT))/tend $$tmp/tend/dumb-init; ln -s /usr/bin/dumb-init $$tmp/debian/dumb-init; \
	cd testdata/dumb-init; \
	echo "== dumb-init's suite against tend as dumb-init"; \
	PATH=$$tmp/tend:$$PATH $(DUMB_INIT_PYTEST) $(DUMB_INIT_EXCUSED) tests > $$tmp/tend.log 2>&1 && tend=0 || tend=$$?; \
	cat $$tmp/tend.log; \
	echo "== the same suite against Debian's /usr/bin/dumb-init"; \
	PATH=$$tmp/debian:$$PATH $(DUMB_INIT_PYTEST) tests > $$tmp/debian.log 2>&1 || true; \
	tail -n 3 $$tmp/debian.log; \
	zt=skipped; zd=skipped; \
	if [ "$$(id -u)" -eq 0 ]; then \
	  PATH=$$tmp/tend:$$PATH unshare -pf --mount-proc dumb-init tests/test-zombies >$$tmp/zt.log 2>&1 && zt=passed || { zt=failed; cat $$tmp/zt.log; tend=1; }; \
	  PATH=$$tmp/debian:$$PATH unshare -pf --mount-proc dumb-init tests/test-zombies >$$tmp/zd.log 2>&1 && zd=passed || zd=failed; \
	fi; \
	echo "dumb-init suite, tend as dumb-init: $$(tail -n 1 $$tmp/tend.log); test-zombies $$zt"; \
	echo "dumb-init suite, Debian's dumb-init $$(dpkg-query -W -f '$${Version}' dumb-init 2>/dev/null): $$(tail -n 1 $$tmp/debian.log); test-zombies $$zd"; \
	exit $$tend
