# tend's image: FROM scratch, holding only the static /tend.
#
#   docker build -t tend .                          # build from source (pulls golang:1.26)
#   docker build --target prebuilt \
#       --build-arg TEND_BINARY=bin/tend -t tend .  # package the binary from `make build`
#
# An app image takes the binary with `COPY --from=tend /tend /tend` and sets
# `ENTRYPOINT ["/tend", "--"]`; see examples/app/Dockerfile.

# Stage "build": compile a static (CGO_ENABLED=0), stripped binary with the
# Makefile's flags. The cli build tags drop man-page and suggestion code,
# which the binary never uses, to keep the layer small.
FROM golang:1.26 AS build
WORKDIR /src
# go.mod and go.sum first, so a source change reuses the module layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -tags urfave_cli_no_docs,urfave_cli_no_suggest \
      -ldflags "-s -w -X main.version=${VERSION}" -o /out/tend .

# Target "prebuilt": package a binary that was already built, static and
# stripped (`make build`), with no build stage and no registry pull. It is
# for machines that cannot fetch the golang image, and it is the path
# examples/examples_test.go builds and runs. TEND_BINARY is relative to the
# build context.
FROM scratch AS prebuilt
ARG TEND_BINARY=bin/tend
COPY ${TEND_BINARY} /tend
ENTRYPOINT ["/tend", "--"]

# The default (last) target: the binary from the build stage, alone in a
# scratch image. With no CMD, `docker run tend` is a pause container.
FROM scratch
COPY --from=build /out/tend /tend
ENTRYPOINT ["/tend", "--"]
