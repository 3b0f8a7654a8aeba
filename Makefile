# browsermcp: `make run` starts the server (stdio), `make test` runs the tests.
GO      ?= go
BIN     ?= bin/browsermcp
ARGS    ?=
export GOFLAGS ?= -mod=mod

# The Playwright driver engine/pw needs: playwright-core from npm at the
# version playwright-go pins, laid out as DIR/package + DIR/node. It is never
# downloaded from Playwright's CDN (playwright.Install is not used).
PW_VERSION := 1.52.0
PWDRIVER   ?= $(CURDIR)/.cache/pwdriver
export PLAYWRIGHT_DRIVER_PATH ?= $(PWDRIVER)

.PHONY: build run test browser pwdriver vet bench bench-peers clean tsclient fuzz

# build is silent on stdout: `make run` may be an MCP client's command, and
# stdout is then the protocol channel.
build:
	@echo "$(GO) build -o $(BIN) ." >&2
	@$(GO) build -o $(BIN) . >&2

# browser installs Debian's Chromium when no Chromium is on PATH (as root, or
# with sudo). Set NO_INSTALL=1 to skip.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || [ -n "$$BROWSERMCP_EXECUTABLE_PATH" ] || [ -n "$(NO_INSTALL)" ] || { \
	  echo "Installing Chromium with apt..." >&2; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >&2; }

# pwdriver assembles the driver from npm (needs node >= 18 and npm; the
# stamp file makes it rerun when PW_VERSION changes). It writes only to
# stderr, because `make run` serves MCP on stdout.
pwdriver: $(PWDRIVER)/.version-$(PW_VERSION)

$(PWDRIVER)/.version-$(PW_VERSION):
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  echo "pwdriver needs node (>= 18) and npm: apt-get install -y nodejs npm" >&2; exit 1; }
	@echo "Assembling the Playwright driver $(PW_VERSION) from npm into $(PWDRIVER)..." >&2
	@rm -rf $(PWDRIVER) $(PWDRIVER).tmp && mkdir -p $(PWDRIVER).tmp
	@cd $(PWDRIVER).tmp && npm install --silent --no-audit --no-fund --no-save --prefix . playwright-core@$(PW_VERSION) >&2
	@mkdir -p $(PWDRIVER) && mv $(PWDRIVER).tmp/node_modules/playwright-core $(PWDRIVER)/package
	@ln -sf "$$(command -v node)" $(PWDRIVER)/node && rm -rf $(PWDRIVER).tmp
	@$(PWDRIVER)/node $(PWDRIVER)/package/cli.js --version | grep -q "$(PW_VERSION)"
	@touch $@

# run needs the driver only for the Playwright engine (--browser firefox or
# webkit, or --engine playwright).
run: build browser
	@case "$(ARGS)" in *firefox*|*webkit*|*playwright*) $(MAKE) --no-print-directory -s pwdriver >&2 ;; esac
	@./$(BIN) $(ARGS)

# staticcheck comes from the Go module proxy at a pinned version (built once,
# then cached by the go command).
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	gofmt -l . | (! grep .) || (echo "gofmt needed" >&2; exit 1)
	$(GO) vet ./...
	$(STATICCHECK) ./...

test: browser pwdriver vet
	$(GO) test -race -count=1 -timeout 45m ./...

# fuzz runs every fuzz target (func FuzzXxx in a _test.go file) for
# FUZZTIME each; `go test` alone runs their seed corpora.
FUZZTIME ?= 60s
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^./.cache' | sort); do \
	  pkg=$$(dirname $$f); \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

bench: browser pwdriver
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# bench-peers runs ../shared/peerbench (or $$PEERBENCH) for browsermcp,
# @playwright/mcp and chrome-devtools-mcp and writes BENCHMARKS.md.
bench-peers: browser
	./bench/peers.sh

clean:
	rm -rf bin .cache

# tsclient installs the official TypeScript MCP SDK for internal/httpserve/ts_client_test.go
# (the test also does it when node_modules is missing).
tsclient:
	cd internal/httpserve/testdata/tsclient && npm install --no-audit --no-fund
