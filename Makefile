# kiln — top-level driver. `make run` and `make test` set up what they need.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
KILN_RELEASE := build/release/kiln
EXAMPLES_OUT := examples/runtime

.PHONY: all deps build run test bench fuzz killtest format clean install docs

all: build

# Debian packages (scripts/packages/*.txt): each target installs the sets it needs.
deps:
	@sh scripts/deps.sh run

build: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DKILN_TESTS=OFF >/dev/null
	cmake --build build/release -j $(JOBS)

# Headers, libkiln.a and libkiln-dev.a, the kiln tool, kiln.pc, kiln-dev.pc and the CMake package, under PREFIX.
PREFIX ?= /usr/local
install: build
	cmake --install build/release --prefix $(PREFIX)

# Cook the bundled examples, then show what was made and check it, then load
# it all through the runtime's asset manager (examples/viewer_headless.c), and
# draw the crate with kiln-view when it was built (docs/viewer.md).
run: build
	$(KILN_RELEASE) build --config examples/kiln.yml -i examples/assets -o $(EXAMPLES_OUT)
	$(KILN_RELEASE) info -o $(EXAMPLES_OUT)
	$(KILN_RELEASE) check -o $(EXAMPLES_OUT)
	build/release/examples/viewer_headless $(EXAMPLES_OUT)
	[ ! -x build/release/kiln-view ] || build/release/kiln-view $(EXAMPLES_OUT) props/crate \
	    --headless --render $(EXAMPLES_OUT)/crate.png --size 640x480

# Every test, under AddressSanitizer and UndefinedBehaviorSanitizer, warnings as errors.
test:
	@sh scripts/deps.sh run test
	cmake -S . -B build/test -DCMAKE_BUILD_TYPE=Debug -DKILN_SANITIZE=ON -DKILN_WERROR=ON >/dev/null
	cmake --build build/test -j $(JOBS)
	cd build/test && ctest --output-on-failure -j $(JOBS)

# The libFuzzer harnesses (fuzz/), built by clang with ASan and UBSan, each run for
# FUZZ_SECONDS on a corpus seeded from ../shared/corpus and the cooked examples
# (scripts/fuzz.sh). FUZZ_HARNESSES picks some; crashes go to build/fuzz/crashes/.
FUZZ_SECONDS ?= 180
FUZZ_HARNESSES ?=
FUZZ_CC ?= clang-14
FUZZ_CXX ?= clang++-14
fuzz:
	@sh scripts/deps.sh run fuzz
	CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug \
	    -DKILN_SANITIZE=ON -DKILN_FUZZ=ON -DKILN_TESTS=OFF -DCMAKE_C_FLAGS="-O1 -fsanitize=fuzzer-no-link" \
	    -DCMAKE_CXX_FLAGS="-O1 -fsanitize=fuzzer-no-link" >/dev/null
	cmake --build build/fuzz -j $(JOBS)
	bash scripts/fuzz.sh build/fuzz $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# The 100-kill loop (scripts/kill_loop.sh, docs/reliability.md): SIGKILL a build of the
# examples at KILLS random moments; after each, a rerun, kiln check and the clean output.
KILLS ?= 100
killtest: build
	bash scripts/kill_loop.sh -n $(KILLS) -k $(KILN_RELEASE)

bench:
	@sh scripts/deps.sh run bench
	cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DKILN_TESTS=OFF -DKILN_BENCH=ON >/dev/null
	cmake --build build/bench -j $(JOBS)
	bash bench/run.sh build/bench

# The generated parts of the documentation: docs/configuration.md's settings
# reference, from the settings table (tools/gen_config_doc.c). The ctest
# config_doc_current fails until this has been run after a settings change.
docs: build
	sh scripts/config_doc.sh --write build/release/tools/kiln_gen_config_doc docs/configuration.md

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf build $(EXAMPLES_OUT)
