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

# Placeholder: bounded fuzz runs are added by the packages that have fuzz targets.
fuzz:
	@echo "no fuzz targets wired yet"

# Installs $(PREFIX)/bin/warplink and $(PREFIX)/bin/nvlink -> warplink.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/warplink
	ln -sf warplink $(DESTDIR)$(PREFIX)/bin/nvlink

demo:
	$(GO) run ./cmd/warplink demo
