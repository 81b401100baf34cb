# warpgraph — the two commands for a fresh machine are `make run` and `make test`.
GO ?= go
CLANG ?= clang++-16
CUDA_ARCH ?= sm_70
KERNEL_SRCS := $(wildcard kernels/*.cu)
KERNEL_PTX := $(patsubst kernels/%.cu,kernels/ptx/%.ptx,$(KERNEL_SRCS))
KERNEL_SIGS := $(patsubst kernels/%.cu,kernels/ptx/%.sig,$(KERNEL_SRCS))
# Every kernel rebuilds when the portability header or any library header
# (kernels/lib: the ACC contract and the schedulers' parts) changes.
KERNEL_HEADERS := kernels/warpgraph.h $(wildcard kernels/lib/*.cuh)
# The flags of docs/architecture.md ("The toolchain") plus line directives for diagnostics and a
# path map so the PTX does not depend on where the repository lives.
CLANG_CUDA_FLAGS := -x cuda --cuda-device-only -nocudainc -nocudalib \
	--cuda-gpu-arch=$(CUDA_ARCH) -Xclang -target-feature -Xclang +ptx64 -O3 -S \
	-gline-directives-only -ffile-prefix-map=$(CURDIR)=.
# Preprocessing only, for the signature files: macro-instantiated entries
# have their names and parameter names only after expansion.
CLANG_PP_FLAGS := -x cuda --cuda-device-only -nocudainc -nocudalib \
	--cuda-gpu-arch=$(CUDA_ARCH) -E -P

.PHONY: build run test test-slurm test-monitor sweep bench fuzz kernels print-clang-flags print-clang-pp-flags device-build vet
.PHONY: bench-anchor pgo

# The commit (with -dirty for uncommitted changes) stamped into the binary,
# so that `warpgraph --version`, sweep rows and device tables name the code
# that made them; "unknown" outside a git checkout.
BUILD_COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
STAMP := -X main.buildCommit=$(BUILD_COMMIT)
BIN ?= ./warpgraph

# The command-line binary, ./warpgraph (BIN=path to put it elsewhere).
build:
	@echo "compiling warpgraph (the first build also compiles SQLite for akita's tracing: about a minute on a fresh machine)"
	$(GO) build -ldflags="$(STAMP)" -o $(BIN) ./cmd/warpgraph

run: build
	$(BIN) demo

# Each step says what it does first: vet and the tests compile every
# package, which takes minutes on an empty build cache with no other output.
test: vet
	@echo "test: hardware tests (they skip, saying why, where no CUDA driver is present):"
	@$(GO) test -count=1 -v -run Hardware ./hw | awk '/no CUDA driver/ && !seen++ {sub(/^ +/, ""); print "  reason: " $$0} /^--- / {print "  " $$0}'
	@echo "test: $(GO) test ./... (every package's tests: about 3 minutes on 2 cores, cmd/warpgraph and scheduler the longest; one line per package as it finishes; a package past 20 minutes fails)"
	@$(GO) test -timeout 20m ./...
	@echo "test: the parallel timing engine's and functional rounds' tests under the race detector (about 2 minutes)"
	@$(GO) test -race -run 'TestPool|TestWarmL2InSliceGroups|TestThreadsGiveTheSameFigures|TestThreadsGiveTheSameProfiles|TestThreadsRunSchedulers|TestFunctionalThreadsRunSchedulers|TestDevicesShareParsesConcurrently|TestRounds|TestStoreOverlay|TestCoLaunchSameAtEveryThreadCount' ./sim/internal/workpool ./sim/memsys ./sim/timing ./sim ./sim/exec

vet:
	@echo "vet: $(GO) vet ./... (compiles and checks every package: about 2 minutes on an empty build cache, seconds after)"
	@$(GO) vet ./...

# The Slurm integration test of warpgraph sweep: installs Slurm and MUNGE if
# missing (Debian, root), starts a one-node cluster, runs a 4-task job array
# of a small simulator sweep, merges it and compares it with the unsharded
# run. Skips where Slurm cannot start, unless CI=true (then it fails).
test-slurm:
	GO=$(GO) ./scripts/test-slurm.sh

# The integration test of --monitor (akita's web monitor of a simulation)
# in a real browser: installs Debian's chromium if missing (root), watches a
# running BFS on the simulated h100 through the API and in headless
# chromium's rendered page. Skips where chromium cannot be installed,
# unless CI=true (then it fails).
test-monitor:
	GO=$(GO) ./scripts/test-monitor.sh

# A sweep with a binary stamped with the commit (and -dirty for uncommitted
# changes), so that every row of data.csv names the code that made it:
#   make sweep ARGS="atomics --target sim"
sweep: build
	$(BIN) sweep $(ARGS)

# Benchmarks are built with the profile the command-line binary is built
# with (see pgo), so that they time the code warpgraph runs.
bench:
	$(GO) test -pgo=$(CURDIR)/cmd/warpgraph/default.pgo -run '^$$' -bench . -benchmem ./...

# Profile-guided optimisation: `go build` applies cmd/warpgraph/default.pgo,
# a CPU profile of five simulations on generated graphs (timing on one and
# two threads, functional, sampled: scripts/pgo-profile.sh), to the
# command-line binary. Regenerate it after large changes to the simulator.
pgo:
	bash scripts/pgo-profile.sh $(GO)

# Simulator speed against MGPUSim v4.2.0, in one run: its vectoradd sample
# and our stream kernel at the same sizes in timing mode, side by side in
# thread-instructions per wall second (bench/anchor, a separate module, so
# warpgraph never depends on MGPUSim):
#   make bench-anchor ARGS="--sizes 16384,65536"
bench-anchor:
	cd bench/anchor && $(GO) run . $(ARGS)

# Each parser fuzzed for a bounded time (FUZZTIME per target).
FUZZTIME ?= 60s
fuzz:
	./scripts/fuzz-all.sh $(FUZZTIME)

# Regenerate the committed PTX. Run from the repository root: the PTX's .file
# table holds ./kernels/NAME.cu, so kernels/ptx_fresh_test.go compiles the
# same relative paths from here with the flags print-clang-flags reports.
kernels: $(KERNEL_PTX) $(KERNEL_SIGS)

# One rule writes both files: the PTX, and the signature file that names
# each entry's parameters (kernels/signatures.go explains why).
kernels/ptx/%.ptx kernels/ptx/%.sig: kernels/%.cu $(KERNEL_HEADERS)
	@mkdir -p kernels/ptx
	$(CLANG) $(CLANG_CUDA_FLAGS) $< -o kernels/ptx/$*.ptx
	$(CLANG) $(CLANG_PP_FLAGS) $< | $(GO) run ./kernels/internal/kernelsig > kernels/ptx/$*.sig.tmp
	mv kernels/ptx/$*.sig.tmp kernels/ptx/$*.sig

# The compiler and its flags, one line: the single source of truth that
# kernels/ptx_fresh_test.go reads (make -s --no-print-directory print-clang-flags).
print-clang-flags:
	@echo $(CLANG) $(CLANG_CUDA_FLAGS)

# The preprocessing command behind the signature files, for the same test.
print-clang-pp-flags:
	@echo $(CLANG) $(CLANG_PP_FLAGS)

# Binaries for a GPU host that has no Go (copy .device/ there; README.md, "Running on an NVIDIA GPU").
device-build:
	@mkdir -p .device
	CGO_ENABLED=1 $(GO) test -c -ldflags='-s -w' -o .device/hw.test ./hw
	CGO_ENABLED=1 $(GO) build -ldflags="-s -w $(STAMP)" -o .device/warpgraph ./cmd/warpgraph
