# tend's image: FROM scratch, holding only the static /tend.
#
#   docker build -t tend .                          # build from source (pulls golang:1.26)
#   docker build --target prebuilt \
#       --build-arg TEND_BINARY=bin/tend -t tend .  # package the binary from `make build`
#   make image                                      # every release architecture, one manifest list (podman)
#
# An app image takes the binary with `COPY --from=tend /tend /tend` and sets
# `ENTRYPOINT ["/tend", "--"]`; see examples/app/Dockerfile.

# The org.opencontainers.image.* labels, set from build args (`make image`
# passes the version, the commit and the source). They are declared here,
# before the first FROM, and redeclared in each stage that uses them. The
# two shipped targets repeat the LABEL block on purpose: a shared stage
# for it would give each image a second, empty layer (buildah commits the
# stage), and the image is meant to be one layer holding /tend.
# LICENSES is an SPDX expression: the LICENSE file is Apache-2.0.
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/tend-init/tend
ARG LICENSES=Apache-2.0

# Stage "build": compile a static, stripped binary with tend's build
# settings, named once in packaging/gobuild.sh (as make build). The base image is
# named in full: podman refuses a short name such as golang:1.26 unless a
# registries.conf alias resolves it.
FROM docker.io/library/golang:1.26 AS build
WORKDIR /src
# go.mod and go.sum first, so a source change reuses the module layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION
RUN VERSION=${VERSION} sh packaging/gobuild.sh -o /out/tend .

# Target "prebuilt": package a binary that was already built, static and
# stripped (`make build`), with no build stage and no registry pull. It is
# for machines that cannot fetch the golang image, and it is the path
# examples/examples_test.go builds and runs. TEND_BINARY is relative to the
# build context. `make image` builds it once per release architecture with
# `podman build --platform`: there is no RUN step, so no emulation is needed.
FROM scratch AS prebuilt
ARG TEND_BINARY=bin/tend
ARG VERSION
ARG REVISION
ARG SOURCE
ARG LICENSES
LABEL org.opencontainers.image.title="tend" \
      org.opencontainers.image.description="A minimal PID 1 for containers: reaps zombies, forwards signals, runs hooks and probes" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="${LICENSES}"
COPY ${TEND_BINARY} /tend
ENTRYPOINT ["/tend", "--"]

# The default (last) target: the binary from the build stage, alone in a
# scratch image. With no CMD, `docker run tend` prints usage and exits 1, as
# tini; `docker run -e TEND_PAUSE=1 tend` is a pause container.
FROM scratch
ARG VERSION
ARG REVISION
ARG SOURCE
ARG LICENSES
LABEL org.opencontainers.image.title="tend" \
      org.opencontainers.image.description="A minimal PID 1 for containers: reaps zombies, forwards signals, runs hooks and probes" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="${LICENSES}"
COPY --from=build /out/tend /tend
ENTRYPOINT ["/tend", "--"]
