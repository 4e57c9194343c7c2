# presentation-server in a container: a release build with the Swift runtime linked in,
# on debian:bookworm-slim with only the shared libraries the binary loads.
#
#   docker build -t presentation-server .
#   docker run -p 8080:8080 -v presentation-data:/data presentation-server
#
# README.md, "Run in a container", has the details; `make container-test` builds and
# checks this file with buildah.

# ---------------------------------------------------------------- build
FROM swift:6.3-bookworm AS build

# libsqlite3-dev is for durable storage; the official image has it today, but naming it
# keeps the build working if that image's package list changes.
RUN export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /build

# Dependencies first, in a layer of their own, so that a change to the code does not
# fetch them again. (.dockerignore keeps Package.resolved out: the build resolves.)
COPY Package.swift ./
RUN swift package resolve

# SwiftPM refuses a package whose test targets have no directory, so Tests/ comes too
# (a change there rebuilds this layer; the tests are not built).
COPY Sources ./Sources
COPY Tests ./Tests

# --static-swift-stdlib links the Swift runtime and FoundationEssentials into the binary (the
# server imports no more of Foundation, so no ICU: 15 MB rather than 59), and the runtime
# image needs only libmicrohttpd and the C/C++ libraries Debian already has.
# Stripped: the symbols would add about 12 MB to the image.
RUN swift build -c release --static-swift-stdlib -Xswiftc -warnings-as-errors --product presentation-server \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/presentation-server" \
        /staging/presentation-server \
    && strip /staging/presentation-server

# ---------------------------------------------------------------- browser client
# Public/ by way of a stage, so that a checkout without it still builds (COPY of a missing
# path fails; this stage gives an empty directory instead). The runtime's COPY below is
# cached by content, so edits elsewhere in the context do not reach the runtime image.
FROM debian:bookworm-slim AS public
COPY . /context/
RUN mkdir -p /context/Public

# ---------------------------------------------------------------- runtime
FROM debian:bookworm-slim

# What the binary loads (ldd): libmicrohttpd and its GnuTLS; libstdc++ and libc are in
# the base. libsqlite3-0 is for durable storage. No CA certificates or tzdata: the server
# opens no outgoing TLS connections and logs UTC.
RUN export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 \
    && rm -rf /var/lib/apt/lists/*

# A fixed numeric user, so that orchestrators can check "not root" without reading
# /etc/passwd; it owns the data directory and nothing else. The directory's group is 0,
# with the owner's rights (chgrp 0, chmod g=u): OpenShift runs an arbitrary uid with gid 0,
# as `docker run --user 1234` and Kubernetes' runAsUser without runAsGroup do, and that
# user must be able to write it. What the server makes in it stays its own user's alone
# (mode 0600, umask 077), so gid 0 may list /data but read no session.
RUN groupadd --gid 10001 presentation \
    && useradd --uid 10001 --gid presentation --home-dir /nonexistent --no-create-home --no-log-init \
        --shell /usr/sbin/nologin presentation \
    && install -d -o 10001 -g 0 -m 0770 /data

COPY --from=build /staging/presentation-server /usr/local/bin/presentation-server
# The browser client, owned by root: the server only reads it.
COPY --from=public /context/Public /app/Public

WORKDIR /app
# Every flag has a variable (presentation-server --help); these are the container's defaults.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    PUBLIC_DIR=/app/Public \
    DATA_DIR=/data
USER 10001:10001
EXPOSE 8080
VOLUME /data

# Bash's /dev/tcp speaks enough HTTP for /healthz, so the image needs no curl; read -t
# bounds the wait even where the runtime does not enforce --timeout. It speaks no TLS: with
# TLS_CERT set the server answers HTTPS only, and a plain GET would mark a healthy server
# unhealthy, so there the check is that a socket listens on the port (/proc/net/tcp and
# tcp6, state 0A), with no connection made: libmicrohttpd takes a connection closed before
# a word of TLS for a failed handshake, and a check that connected and hung up logged a
# warning and counted one in presentation_tls_handshakes_failed_total every 15 s. The port
# is read in decimal (10#), as the server reads PORT: printf alone took PORT=08080 for bad
# octal and 010 for 8. It connects to HOST
# when that names one address (the server listens there alone), else to 127.0.0.1. The
# server takes an IPv6 address in brackets too (`[::1]`), which bash's /dev/tcp does not,
# so the brackets come off first.
HEALTHCHECK --interval=15s --timeout=5s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "h=${HOST:-127.0.0.1}; h=${h//[][]/}; case $h in 0.0.0.0|::) h=127.0.0.1;; esac; if [ -n \"$TLS_CERT\" ]; then p=$(printf %04X \"$((10#${PORT:-8080}))\") || exit 1; for f in /proc/net/tcp /proc/net/tcp6; do while read -r _ a _ s _; do [ \"$s\" = 0A ] && [ \"${a##*:}\" = \"$p\" ] && exit 0; done < \"$f\"; done 2>/dev/null; exit 1; fi; exec 3<>/dev/tcp/$h/${PORT:-8080} || exit 1; printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && read -r -t 4 version status rest <&3 && [ \"$status\" = 200 ]"]

# The server itself is PID 1 (exec form, no shell): SIGTERM reaches it, and it stops
# accepting, ends streams, lets requests in flight finish (up to 10 s) and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/presentation-server"]
