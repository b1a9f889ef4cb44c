# tend as a FROM scratch image holding only /tend.
#
#   docker build -t tend .                          # build from source (needs the golang image)
#   docker build --target prebuilt \
#       --build-arg TEND_BINARY=bin/tend -t tend .  # package a binary built by `make build`
#
# Other images take the binary with: COPY --from=tend /tend /tend

# Build stage: a static, stripped binary.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -tags urfave_cli_no_docs,urfave_cli_no_suggest \
      -ldflags "-s -w -X main.version=${VERSION}" -o /out/tend .

# prebuilt: packages an existing static binary; no registry pull is needed,
# so it also builds where the golang image cannot be fetched.
FROM scratch AS prebuilt
ARG TEND_BINARY=bin/tend
COPY ${TEND_BINARY} /tend
ENTRYPOINT ["/tend", "--"]

# The default target: the binary from the build stage.
FROM scratch
COPY --from=build /out/tend /tend
ENTRYPOINT ["/tend", "--"]
