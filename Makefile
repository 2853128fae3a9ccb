# The README's contract: `make run` and `make test` install what is missing, build, and go.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
# CI passes WERROR=ON (.ci/run): warnings in the project's own code fail the build.
WERROR ?= OFF

# Debian packages the build needs (checked with dpkg, installed with apt-get when missing).
APT_PACKAGES := build-essential cmake ninja-build ccache pkg-config \
                libgtest-dev libgmock-dev libbenchmark-dev libtbb-dev libcli11-dev \
                nlohmann-json3-dev libssl-dev libtomlplusplus-dev libcpp-httplib-dev libsqlite3-dev \
                postgresql libpq-dev clang-format faketime
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build run test bench install clean format

all: build

deps: $(BUILD_DIR)/.deps-apt tests/interop/node_modules/.package-lock.json

$(BUILD_DIR)/.deps-apt:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi; \
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then \
	  echo "installing: nodejs npm"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs npm >/dev/null; \
	fi
	@mkdir -p $(BUILD_DIR) && touch $@

# The interop peers (@noble/curves, ...), pinned by package-lock.json.
tests/interop/node_modules/.package-lock.json: tests/interop/package-lock.json
	@cd tests/interop && npm ci --no-audit --no-fund --loglevel=error

$(BUILD_DIR)/build.ninja: CMakeLists.txt | $(BUILD_DIR)/.deps-apt
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSNARKPIPE_WERROR=$(WERROR) >/dev/null

build: deps $(BUILD_DIR)/build.ninja
	@grep -qx "SNARKPIPE_WERROR:BOOL=$(WERROR)" $(BUILD_DIR)/CMakeCache.txt || \
	  cmake -S . -B $(BUILD_DIR) -DSNARKPIPE_WERROR=$(WERROR) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: set up (keys cached in build/keys), prove and verify a SHA-256 Merkle path.
run: build
	@$(BUILD_DIR)/snarkpipe demo --keys-dir $(BUILD_DIR)/keys

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The Filecoin ABI's libraries, header and Rust crate (PREFIX/lib, include/snarkpipe,
# share/snarkpipe/rust/supraseal-c2) and the program (PREFIX/bin).
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

bench: build
	@$(BUILD_DIR)/snarkpipe bench cpu --json

# clang with its fuzzer and sanitizer runtimes, for `make fuzz` and `make test-sanitize`.
.PHONY: clang-deps
clang-deps:
	@missing=""; for p in clang libclang-rt-dev; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

# libFuzzer targets for the decoders (tests/fuzz, clang + ASan/UBSan, in build-fuzz): each
# runs FUZZ_SECONDS on a copy of its seed corpus; fails when any finds a crash.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps clang-deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(JOBS) tests/fuzz/run_all.sh

# The CPU test suite under ASan + UBSan (build-asan), the engine and service test programs
# under TSan (build-tsan); clang, the portable field code (tests/sanitize/run.sh).
.PHONY: test-sanitize
test-sanitize: deps clang-deps
	@SANITIZE_JOBS=$(JOBS) tests/sanitize/run.sh

clean:
	rm -rf $(BUILD_DIR)

# The sources formatted by .clang-format (tools/format.sh; the ctest source_format checks it).
format:
	@tools/format.sh
