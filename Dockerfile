# CI image for zlua: Debian bookworm with Go; the same Makefile targets as
# .ci/run, so the image cannot drift from CI.
FROM golang:1.26-bookworm
WORKDIR /src
COPY . .
RUN make deps
CMD ["bash", ".ci/run"]
