# Two commands matter: `make run` and `make test`. Everything else is for developers.
SWIFT ?= swift
STRICT = -Xswiftc -warnings-as-errors
ARGS ?=

.PHONY: run test build release deps clean container-test contract-test

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build $(STRICT)

release: deps
	$(SWIFT) build -c release $(STRICT)

# Starts the server on 127.0.0.1:8080 (override with ARGS="--port 9000" or PORT=9000).
run: release
	.build/release/presentation-server $(ARGS)

# Unit tests of the domain and API, integration tests against the real server, the
# browser tests, then the real server against its contract (Public/openapi.yaml) with
# schemathesis.
test: deps
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build
	scripts/browser-test
	scripts/api-contract-test

# The contract test alone (about 2 minutes; see scripts/api-contract-test).
contract-test: deps
	$(SWIFT) build $(STRICT)
	scripts/api-contract-test

# The browser client's tests alone: headless Chromium against the real server
# (Tests/Browser; scripts/browser-test installs Chromium and a venv when missing).
.PHONY: browser-test
browser-test: deps
	$(SWIFT) build $(STRICT)
	scripts/browser-test

# The benchmark: our server beside libmicrohttpd's reference server (../shared/bench),
# ratios in one run (bench/run; a few minutes). Results go to bench-results/.
.PHONY: bench bench-smoke
bench: deps
	bench/run

# The same machinery for one second per workload, as CI runs it; it never judges a speed.
# bench/compare's smoke runs the server bench/run built beside the C server.
bench-smoke: deps
	bench/run --smoke
	bench/compare --smoke "$${SCRATCH:-.build}/release/presentation-server" c
	bench/soak --smoke --server "$${SCRATCH:-.build}/release/presentation-server"
	bench/neighbour --smoke "$${SCRATCH:-.build}/release/presentation-server"

# Session churn for SOAK_SECONDS (default 600) against a durable server, sampling its memory,
# descriptors and threads: does the footprint level off? (bench/soak; prints, never judges.)
.PHONY: soak
soak: release
	@command -v python3 >/dev/null || { echo "make soak needs python3 (Debian: apt-get install python3)"; exit 1; }
	bench/soak --server .build/release/presentation-server --seconds $${SOAK_SECONDS:-600} $(SOAK_ARGS)

# The fuzz targets of Fuzz/ (libFuzzer + AddressSanitizer): replays the checked-in inputs,
# then fuzzes each target for FUZZ_SECONDS (default 60; see scripts/fuzz). Not in CI.
.PHONY: fuzz
fuzz: deps
	scripts/fuzz

# The Swift tests (and the servers they start) under AddressSanitizer + LeakSanitizer, then
# under ThreadSanitizer, in builds of their own (scripts/sanitize). Not in CI.
.PHONY: sanitize
sanitize: deps
	scripts/sanitize

# Builds the Dockerfile with buildah and checks the image over HTTP (root, Debian; see
# scripts/container-test). The first run on a machine also makes the base images.
container-test:
	@scripts/container-test

clean:
	rm -rf .build
