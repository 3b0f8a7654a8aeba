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

.PHONY: build run test browser pwdriver gridjar gridtools grid vet bench bench-deps bench-peers bench-peerbench clean tsclient pwtest fuzz npm bench-cli

# build is silent on stdout: `make run` may be an MCP client's command, and
# stdout is then the protocol channel.
build:
	@echo "$(GO) build -o $(BIN) ." >&2
	@$(GO) build -o $(BIN) . >&2

# browser installs Debian's Chromium when no Chromium is on PATH, and ffmpeg
# (the video encoder, with ffprobe) when it is missing (as root, or with
# sudo). Set NO_INSTALL=1 to skip.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || [ -n "$$BROWSERMCP_EXECUTABLE_PATH" ] || [ -n "$(NO_INSTALL)" ] || { \
	  echo "Installing Chromium with apt..." >&2; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >&2; }
	@command -v ffmpeg >/dev/null 2>&1 || [ -n "$(NO_INSTALL)" ] || { \
	  echo "Installing ffmpeg (start_video's encoder) with apt..." >&2; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq ffmpeg >&2; }

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

# Selenium Grid 4 for --grid-url: its standalone jar ships in the npm
# package @nightwatch/selenium-server. npm pack fetches the package without
# running its install script, which would download from GitHub.
GRID_VERSION := 4.20.0
GRIDJAR      ?= $(CURDIR)/.cache/grid/selenium-server-$(GRID_VERSION).jar
GRID_PORT    ?= 4444
GRID_NODES   ?= 2

gridjar: $(GRIDJAR)

$(GRIDJAR):
	@command -v npm >/dev/null 2>&1 || { echo "gridjar needs npm: apt-get install -y npm" >&2; exit 1; }
	@echo "Fetching Selenium Grid $(GRID_VERSION) from npm into $(dir $(GRIDJAR))..." >&2
	@rm -rf $(dir $(GRIDJAR))fetch && mkdir -p $(dir $(GRIDJAR))fetch
	@cd $(dir $(GRIDJAR))fetch && npm pack --silent @nightwatch/selenium-server@$(GRID_VERSION) >/dev/null
	@tar xzf $(dir $(GRIDJAR))fetch/nightwatch-selenium-server-$(GRID_VERSION).tgz -C $(dir $(GRIDJAR))fetch package/lib/$(notdir $(GRIDJAR))
	@mv $(dir $(GRIDJAR))fetch/package/lib/$(notdir $(GRIDJAR)) $@ && rm -rf $(dir $(GRIDJAR))fetch

# gridtools installs Java and chromedriver from apt when missing.
gridtools:
	@command -v java >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || [ -n "$(NO_INSTALL)" ] || { \
	  echo "Installing Java and chromedriver with apt..." >&2; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq openjdk-17-jre-headless chromium-driver >&2; }

# grid runs a local Selenium Grid on 127.0.0.1 in the foreground until
# Ctrl-C: a hub on GRID_PORT and GRID_NODES nodes (GRID_NODES=0: one
# standalone server). Then: bin/browsermcp --grid-url http://127.0.0.1:$(GRID_PORT)
# --executable-path /usr/bin/chromium. The hub's request timeout matches
# --grid-queue-timeout's default (60 s), so that no request outlives its
# create_session.
grid: gridjar gridtools browser
	@set -e; pids=""; trap 'kill $$pids 2>/dev/null; wait' INT TERM EXIT; \
	if [ "$(GRID_NODES)" = 0 ]; then \
	  java -jar $(GRIDJAR) standalone --host 127.0.0.1 --port $(GRID_PORT) --selenium-manager false --session-request-timeout 60 & pids="$$!"; \
	else \
	  java -jar $(GRIDJAR) hub --host 127.0.0.1 --port $(GRID_PORT) --session-request-timeout 60 & pids="$$!"; \
	  for i in $$(seq 1 $(GRID_NODES)); do \
	    java -jar $(GRIDJAR) node --host 127.0.0.1 --port $$(( $(GRID_PORT) + 1000 + i )) --hub http://127.0.0.1:$(GRID_PORT) --selenium-manager false & pids="$$pids $$!"; \
	  done; \
	fi; \
	echo "Selenium Grid on http://127.0.0.1:$(GRID_PORT) (Ctrl-C stops it)" >&2; wait

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

# test runs go test without its own vet pass (-vet=off): vet, a prerequisite,
# has just run go vet's full set of checks, of which go test's is a subset.
test: browser pwdriver gridjar pwtest vet
	$(GO) test -race -count=1 -vet=off -timeout 45m ./...

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

bench: browser pwdriver gridjar
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# bench-deps installs the peers that bench/harness drives beside browsermcp
# (@playwright/mcp, chrome-devtools-mcp, agent-browser) from npm, at the
# versions bench/peers/package-lock.json pins. agent-browser's npm package
# ships the native binaries the harness runs; its postinstall, which is not
# run, would only mark them executable (or fetch one from GitHub).
bench-deps:
	cd bench/peers && npm ci --ignore-scripts --no-audit --no-fund >&2 && chmod +x node_modules/agent-browser/bin/agent-browser-*

# bench-peers runs bench/harness for browsermcp and the peers and writes its
# sections of BENCHMARKS.md: tokens per task (with and without a find tool),
# then the warm steps, the cold start and tools/list (TASKS=login,cart for
# fewer tasks, N warm iterations).
TASKS ?= all
N     ?= 10
bench-peers: browser bench-deps build
	$(GO) run ./bench/harness -tasks $(TASKS) -n $(N) -json .cache/bench/harness.json -update BENCHMARKS.md

# bench-peerbench regenerates the rest of BENCHMARKS.md with the older
# harness outside the repository, ../shared/peerbench (or $$PEERBENCH).
bench-peerbench: browser bench-deps
	./bench/peers.sh

# bench-cli measures the command line next to agent-browser's CLI, the one
# bench-deps installs (or AGENT_BROWSER), and prints the table of
# BENCHMARKS.md's "Command line".
AGENT_BROWSER ?= bench/peers/node_modules/agent-browser/bin/agent-browser-linux-x64
bench-cli: build browser bench-deps
	$(GO) run ./bench/cli -bin $(BIN) -agent-browser $(AGENT_BROWSER) -n $(N)

# npm builds the npm packages into NPM_OUT (npm/build.mjs), each packed with
# npm pack: @browsermcp/<os>-<cpu> for linux, darwin and win32 on x64 and
# arm64, each holding the binary cross-compiled with CGO_ENABLED=0 and
# declaring its os and cpu, and browsermcp, whose optionalDependencies name
# them and whose command is a small JS shim that runs the one npm
# installed (nothing is downloaded at install; no install script).
# Publishing them is described in README.md; it is not done from here.
VERSION       ?= $(shell sed -n 's/^var version = "\(.*\)"/\1/p' main.go)
NPM_OUT       ?= dist/npm
NPM_PLATFORMS ?= linux-x64,linux-arm64,darwin-x64,darwin-arm64,win32-x64,win32-arm64

npm:
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  echo "npm needs node and npm: apt-get install -y nodejs npm" >&2; exit 1; }
	node npm/build.mjs --out $(NPM_OUT) --version $(VERSION) --platforms $(NPM_PLATFORMS)

clean:
	rm -rf bin .cache dist

# tsclient installs the official TypeScript MCP SDK for internal/httpserve/ts_client_test.go
# (the test also does it when node_modules is missing).
tsclient:
	cd internal/httpserve/testdata/tsclient && npm install --no-audit --no-fund

# pwtest installs @playwright/test, pinned to PW_VERSION in
# testdata/pwtest/package.json, for export_stdio_test.go, which runs the
# tests export_test writes with the system Chromium: no browser is
# downloaded (the test also installs it when node_modules is missing).
# A stamp in node_modules makes it run npm only when the package files
# change (or PW_VERSION does), not on every make test.
PWTEST_STAMP := testdata/pwtest/node_modules/.installed-$(PW_VERSION)

pwtest: $(PWTEST_STAMP)

$(PWTEST_STAMP): testdata/pwtest/package.json testdata/pwtest/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "pwtest needs npm: apt-get install -y npm" >&2; exit 1; }
	@grep -q '"@playwright/test": "$(PW_VERSION)"' testdata/pwtest/package.json || { echo "testdata/pwtest/package.json does not pin @playwright/test $(PW_VERSION)" >&2; exit 1; }
	cd testdata/pwtest && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 600 npm install --no-audit --no-fund >&2
	@touch $@
