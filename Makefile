# warplink: parallel drop-in replacement for nvlink.
PREFIX ?= /usr/local
GO     ?= go
BIN    := bin/warplink

.PHONY: build test bench fuzz install demo

build:
	$(GO) build -o $(BIN) ./cmd/warplink

test:
	$(GO) test -timeout 10m ./...

bench:
	$(GO) run ./bench/run

# Bounded fuzz runs of every reader and of the whole link, one target after
# another (FUZZTIME each; e.g. make fuzz FUZZTIME=5m).
FUZZTIME ?= 30s
FUZZ_TARGETS = ./elf:FuzzParse ./elf:FuzzNvInfo ./elf:FuzzRelocs ./elf:FuzzDump \
	./elf/hostobj:FuzzHostObj ./elf/fatbin:FuzzFatbin ./elf/ar:FuzzArchive \
	./internal/input:FuzzExpand ./internal/cmpelf:FuzzCompare \
	./internal/demangle:FuzzDemangle ./internal/e2e:FuzzLink ./internal/e2e:FuzzLinkSM80
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s; \
	done

# Installs $(PREFIX)/bin/warplink and $(PREFIX)/bin/nvlink -> warplink.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/warplink
	ln -sf warplink $(DESTDIR)$(PREFIX)/bin/nvlink

demo:
	$(GO) run ./cmd/warplink demo
