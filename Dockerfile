# CI image for zlua: Debian bookworm with Go, the Lua 5.4 and LuaJIT headers,
# every Go module and a warm build cache. Its CMD is .ci/run (make test, make
# test-luajit: the Makefile is the one place that says what CI runs) and it
# runs offline (no module proxy, no Debian mirror), as root or as any other
# uid, on the copied source or on a checkout mounted over /src.
#
#   docker build -t zlua-ci .                 (or: buildah bud -t zlua-ci .)
#   docker run --rm zlua-ci
#   docker run --rm --user 1000:1000 zlua-ci
#   docker run --rm -v "$PWD:/src" zlua-ci    (a checkout of any owner)
#
# GO_IMAGE defaults to the Go 1.26 line on bookworm; verified with Go 1.26.8
# on Debian 12.15 (golang:1.26.8-bookworm, to pin: --build-arg
# GO_IMAGE=golang:1.26.8-bookworm); the README's CI section has the image
# size and the CMD's time.
ARG GO_IMAGE=golang:1.26-bookworm
FROM ${GO_IMAGE}

# The Debian packages. This layer depends on .ci/deps alone (make deps runs
# the same script), so source and Makefile edits reuse it; the script removes
# apt's lists in an image.
WORKDIR /src
COPY .ci/deps .ci/deps
RUN sh .ci/deps

# Any uid may run the CMD: the build cache lives under GOPATH (/go, mode 1777
# in the base image) instead of $HOME, and uid 1000 gets a home. A checkout
# mounted by the CI system belongs to someone else: git (and go's VCS
# stamping) must accept it instead of failing on "dubious ownership".
ENV GOCACHE=/go/cache
RUN git config --system --add safe.directory '*' \
	&& useradd --uid 1000 --user-group --create-home --shell /bin/bash ci

# Every module of both Go modules (the root and bench/), so the CMD needs no
# module proxy. Only the go.mod/go.sum files: source edits reuse this layer.
# A build that cannot reach the proxy (no network, or a TLS-intercepting
# proxy whose CA the build does not see: README, CI) still builds, loudly:
# the image then lacks the modules and the warm cache, and its CMD downloads
# what it needs, so it runs only with the network.
COPY go.mod go.su[m] ./
COPY bench/go.mod bench/go.sum bench/
RUN go mod download && (cd bench && go mod download) || { \
	echo 'zlua-ci: WARNING: Go modules not downloaded; this image is NOT offline-capable (its CMD will need the module proxy)' >&2; \
	mkdir -p /go/pkg && chmod -R a+rwX /go/pkg && touch /go/zlua-modules-missing; }

# The source, then the build cache: everything `make test` and `make
# test-luajit` compile, compiled once here (make ci-warm runs no test), with
# the module proxy off to prove the module download complete. WARM_CACHE=0
# skips the warming (a smaller image, a slower CMD); the check stays.
COPY . .
ARG WARM_CACHE=1
RUN set -e; \
	if [ -e /go/zlua-modules-missing ]; then \
		echo 'zlua-ci: WARNING: no modules, so no cache warm-up and no offline check' >&2; \
	else \
		if [ "$WARM_CACHE" = 1 ]; then GOPROXY=off make ci-warm; fi; \
		for tags in '' luajit; do \
			GOPROXY=off go list -tags "$tags" -deps -test ./... >/dev/null; \
			(cd bench && GOPROXY=off go list -tags "$tags" -deps -test ./... >/dev/null); \
		done; \
	fi; \
	mkdir -p "$GOCACHE" && chmod -R a+rwX "$GOCACHE"

CMD ["bash", ".ci/run"]
