# warplink: parallel drop-in replacement for nvlink.
PREFIX ?= /usr/local
GO     ?= go
BIN    := bin/warplink

.PHONY: build test race bench fuzz sweep fuzz-shared realcode buildsys install demo

# warplink is one static executable; warplink-nvvm, its libnvvm helper for
# -dlto links, is built beside it (docs/design.md). warplink is copied
# into place, as install does: the Go linker writes through a mapping,
# which leaves the file in the page cache in small folios, and each start
# of a binary so cached takes 0.1-0.2 ms more (docs/performance.md).
#
# It is built with the collector's older marking (GOEXPERIMENT=nogreenteagc):
# Green Tea, Go 1.26's default, keeps each small-object span's mark bits
# in the span's last page, a page more for every size class a process
# allocates from; a one-object link took 30-55 page faults fewer without it
# (0.15-0.17 ms less CPU), and large links took as long (docs/performance.md).
# (Not where the toolchain no longer knows the experiment: go env fails.)
GOEXPERIMENT ?= $(shell GOEXPERIMENT=nogreenteagc $(GO) env GOEXPERIMENT >/dev/null 2>&1 && echo nogreenteagc)
build:
	GOEXPERIMENT=$(GOEXPERIMENT) CGO_ENABLED=0 $(GO) build -o $(BIN).build ./cmd/warplink
	cp $(BIN).build $(BIN).new && mv -f $(BIN).new $(BIN) && rm -f $(BIN).build
	CGO_ENABLED=0 $(GO) build -o bin/warplink-nvvm ./cmd/warplink-nvvm

# Every package's tests; internal/e2e, the longest, named first so that it
# starts first and the other packages run beside it.
test:
	$(GO) test -timeout 10m ./internal/e2e ./...

# The packages that run goroutines (and the end-to-end links through
# them) under the race detector. RACE_SKIP are the end-to-end tests that
# only run warplink as a separate binary (built without the detector):
# under -race they would repeat make test's work and check nothing more.
RACE_PKGS = ./actors ./shard ./merge ./internal/input ./internal/atomicfile ./internal/e2e
RACE_SKIP = ^(TestJITLTO|TestNvccDlink|TestNvccDlinkLTO|TestMalformed|TestMalformedNvlink)$$
race:
	$(GO) test -race -timeout 20m -skip '$(RACE_SKIP)' $(RACE_PKGS)

bench:
	$(GO) run ./bench/run

# The nvcc sweep: compiles testdata/sweep's programs with the real nvcc
# (sm_80, sm_90; plain, -G, -lineinfo) and links each with nvlink and
# warplink, comparing bytes, also with --preserve-relocs, -g (the -G
# objects) and --kernels-used (the plain ones) (needs nvcc and nvlink; a
# few minutes). WARPLINK_CUDA=<a toolkit's bin folder> runs that toolkit's
# nvcc, ptxas and nvlink (WARPLINK_CUDA=/opt/cuda12/bin: CUDA 12.5, linking
# its own libcudadevrt from <bin>/../lib64); WARPLINK_SWEEP_PROGS=a,b links
# only those programs of testdata/sweep.
sweep:
	WARPLINK_SWEEP=1 $(GO) test -timeout 30m ./internal/e2e -run TestNvccSweep -v

# Random shared-memory programs compiled with the real nvcc, linked with
# nvlink and warplink, bytes compared (N programs; needs nvcc and nvlink;
# WARPLINK_CUDA selects the toolkit as for make sweep).
N ?= 100
fuzz-shared:
	WARPLINK_SHAREDFUZZ=$(N) $(GO) test -timeout 60m ./internal/e2e -run TestNvccSharedFuzz -v

# The real-code corpus: public CUDA code bases unpacked under REALCODE
# (docs/realcode.md says which and how), each program compiled with nvcc
# -dc (sm_80, sm_90; plain, -G, -lineinfo) and linked with nvlink and
# warplink directly, under nvcc -dlink, with --kernels-used and with
# --preserve-relocs, bytes compared. REALCODE_N=N takes N programs spread
# over the list, REALCODE_MATCH a regexp on their names, REALCODE_ARCHS
# other architectures; REALCODE_OUT gets every link's result;
# REALCODE_CACHE=<dir> keeps the objects nvcc built for later runs;
# REALCODE_CUDA=<toolkit> (bin/ and lib64/: /opt/cuda12) builds and links
# with that toolkit's nvcc, nvlink and libcudadevrt instead. Two nvcc
# at a time, niced (needs nvcc and nvlink).
REALCODE_N ?=
REALCODE_MATCH ?=
REALCODE_ARCHS ?=
REALCODE_OUT ?=
REALCODE_CACHE ?=
REALCODE_CUDA ?=
# CMake (CUDA_SEPARABLE_COMPILATION) and clang -fgpu-rdc build
# testdata/buildsys with nvlink and with warplink in its place, embedded
# device code compared (needs cmake, nvcc, clang-19; docs/usage.md).
buildsys:
	WARPLINK_BUILDSYS=1 $(GO) test -timeout 30m ./internal/e2e -run '^(TestCMakeSeparable|TestClangGPURDC)$$' -v

realcode:
	@test -n "$(REALCODE)" || { echo "usage: make realcode REALCODE=<folder of CUDA code bases> (docs/realcode.md)"; exit 2; }
	WARPLINK_REALCODE=$(abspath $(REALCODE)) WARPLINK_REALCODE_N=$(REALCODE_N) \
	WARPLINK_REALCODE_MATCH='$(REALCODE_MATCH)' WARPLINK_REALCODE_ARCHS=$(REALCODE_ARCHS) \
	WARPLINK_REALCODE_OUT=$(if $(REALCODE_OUT),$(abspath $(REALCODE_OUT))) \
	WARPLINK_REALCODE_CACHE=$(if $(REALCODE_CACHE),$(abspath $(REALCODE_CACHE))) \
	$(if $(REALCODE_CUDA),PATH=$(REALCODE_CUDA)/bin:$$PATH WARPLINK_REALCODE_CUDALIB=$(REALCODE_CUDA)/lib64) \
	nice -n 10 $(GO) test -timeout 300m ./internal/e2e -run '^TestRealCode$$' -v

# Bounded fuzz runs of every reader and of the whole link, one target after
# another (FUZZTIME each; e.g. make fuzz FUZZTIME=5m). A target that fails
# with only "context deadline exceeded" and writes no failing input hit the
# race of Go's fuzzing coordinator at the end of -fuzztime (golang/go#75804,
# fixed in Go 1.27; seen here once in twelve 20 s targets): it is reported
# and the run goes on. Any other failure stops it.
FUZZTIME ?= 30s
FUZZ_TARGETS = ./elf:FuzzParse ./elf:FuzzNvInfo ./elf:FuzzRelocs ./elf:FuzzDump \
	./elf:FuzzCallgraph ./elf/hostobj:FuzzHostObj ./elf/fatbin:FuzzFatbin \
	./elf/fatbin:FuzzLZ4 ./elf/fatbin:FuzzZstd ./elf/ar:FuzzArchive \
	./internal/input:FuzzExpand ./internal/cmpelf:FuzzCompare \
	./internal/demangle:FuzzDemangle ./internal/cli:FuzzSplitOptionsFile \
	./internal/cli:FuzzCommandLine ./internal/linkflags:FuzzParseVersion \
	./internal/nvvmproto:FuzzReadRequest ./internal/nvvmproto:FuzzReadReply \
	./internal/jit:FuzzHostItem ./merge:FuzzHostKernelMatch ./merge:FuzzToolkitOf \
	./internal/e2e:FuzzLink ./internal/e2e:FuzzLinkSM80
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$fn ($$pkg, $(FUZZTIME))"; \
		dir=$$pkg/testdata/fuzz/$$fn; before=$$(ls "$$dir" 2>/dev/null | wc -l); \
		if $(GO) test $$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s >"$$log" 2>&1; then \
			cat "$$log"; continue; \
		fi; \
		cat "$$log"; \
		if [ "$$(ls "$$dir" 2>/dev/null | wc -l)" -eq "$$before" ] && grep -qx '    context deadline exceeded' "$$log"; then \
			echo "== $$fn: stopped by the fuzzing coordinator's deadline race (golang/go#75804), no failing input written: not a failure"; \
		else exit 1; fi; \
	done

# Installs $(PREFIX)/bin/warplink, warplink-nvvm and nvlink -> warplink.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/warplink
	install -m 755 bin/warplink-nvvm $(DESTDIR)$(PREFIX)/bin/warplink-nvvm
	ln -sf warplink $(DESTDIR)$(PREFIX)/bin/nvlink

demo:
	$(GO) run ./cmd/warplink demo
