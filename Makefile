# browsermcp: `make run` starts the server (stdio), `make test` runs the tests.
GO      ?= go
BIN     ?= bin/browsermcp
ARGS    ?=
export GOFLAGS ?= -mod=mod

.PHONY: build run test browser vet bench bench-peers clean tsclient

build:
	$(GO) build -o $(BIN) .

# browser installs Debian's Chromium when no Chromium is on PATH (as root, or
# with sudo). Set NO_INSTALL=1 to skip.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || [ -n "$$BROWSERMCP_EXECUTABLE_PATH" ] || [ -n "$(NO_INSTALL)" ] || { \
	  echo "Installing Chromium with apt..." >&2; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >&2; }

run: build browser
	@./$(BIN) $(ARGS)

vet:
	gofmt -l . | (! grep .) || (echo "gofmt needed" >&2; exit 1)
	$(GO) vet ./...

test: browser vet
	$(GO) test -race -count=1 -timeout 20m ./...

bench: browser
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# bench-peers runs ../shared/peerbench (or $$PEERBENCH) for browsermcp,
# @playwright/mcp and chrome-devtools-mcp and writes BENCHMARKS.md.
bench-peers: browser
	./bench/peers.sh

clean:
	rm -rf bin

# tsclient installs the official TypeScript MCP SDK for ts_client_test.go
# (the test also does it when node_modules is missing).
tsclient:
	cd testdata/tsclient && npm install --no-audit --no-fund
