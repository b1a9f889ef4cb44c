# tend's build, test and benchmark entry points. Everything runs on a fresh
# Debian machine with Go; `make deps` installs the Debian packages the tests
# and benchmarks use (as root, or through sudo).

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
TAGS      := urfave_cli_no_docs,urfave_cli_no_suggest
LDFLAGS   := -s -w -X main.version=$(VERSION)
BUILDENV  := CGO_ENABLED=0
BUILDARGS := -trimpath -tags $(TAGS) -ldflags "$(LDFLAGS)"
OUT       ?= bin

FUZZTIME  ?= 8s

.PHONY: all build run test fuzz deps fakeapp release bench torture clean

all: build

build:
	$(BUILDENV) $(GO) build $(BUILDARGS) -o $(OUT)/tend .

fakeapp:
	$(BUILDENV) $(GO) build -trimpath -o $(OUT)/fakeapp ./testdata/fakeapp

# run: build tend and show it as PID 1 of a new PID namespace, running a demo
# app that leaves 100 orphans behind and exits 3.
run: build fakeapp
	unshare -pf --mount-proc $(OUT)/tend -v -w -- $(OUT)/fakeapp storm 100; \
	  echo "tend exited with $$? (the demo app reaped 100 orphans)"

deps:
	./.ci/deps.sh

# test installs what a fresh machine lacks first (gcc for -race among it),
# then checks the module and the code, fuzzes, and runs every test with the
# race detector. Each step fails the run.
test: deps
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(MAKE) --no-print-directory fuzz
	$(GO) test -race -count=1 ./...

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# fuzz runs every fuzz target for FUZZTIME; the seed corpora live in each
# package's testdata/fuzz and also run in plain `go test`. A failing
# target's log is printed; the log lives in a temporary file.
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg >"$$log" 2>&1 || { cat "$$log"; exit 1; }; \
	  done; \
	done

release:
	rm -rf $(OUT)/release && mkdir -p $(OUT)/release
	for arch in amd64 arm64; do \
	  $(BUILDENV) GOOS=linux GOARCH=$$arch $(GO) build $(BUILDARGS) -o $(OUT)/release/tend-linux-$$arch . || exit 1; \
	done
	cd $(OUT)/release && sha256sum tend-linux-* > SHA256SUMS && cat SHA256SUMS

bench: build fakeapp
	TAGS=$(TAGS) ./bench/run.sh

# torture runs every test named TestTorture* in every package with the
# issue's numbers (TEND_TORTURE=1: 2,000 apps, 10,000 orphans and signals, a
# 10-minute long run), then each fuzz target for 30 s, and prints a summary.
# A case joins by its name alone, so none can silently drop out.
torture: deps
	@mkdir -p $(OUT); rm -f $(OUT)/torture.md $(OUT)/torture.log
	TEND_TORTURE=1 TEND_TORTURE_SUMMARY=$(abspath $(OUT))/torture.md \
	  $(GO) test -count=1 -timeout 60m -run '^TestTorture' -v ./... > $(OUT)/torture.log 2>&1; \
	  status=$$?; \
	  echo "| case | figure | target |"; echo "|---|---|---|"; cat $(OUT)/torture.md; echo; \
	  echo "| test | result |"; echo "|---|---|"; \
	  grep -E '^--- (PASS|FAIL|SKIP)' $(OUT)/torture.log | awk '{print "| " $$3 " | " $$2 " " $$4 " |"}'; \
	  $(MAKE) --no-print-directory fuzz FUZZTIME=30s; \
	  exit $$status

clean:
	rm -rf $(OUT)
