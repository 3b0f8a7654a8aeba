// Package config builds the server's settings from four layers: defaults <
// a JSON config file (--config or BROWSERMCP_CONFIG) < BROWSERMCP_*
// environment variables < flags. Each setting is one entry in options,
// reachable by a flag, a variable and a file key alike. Load reports every
// problem in every layer at once; the methods of Config hand each part of
// the server (engine, manager, tools, HTTP transport, logs) its own view.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/browserpath"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
	"github.com/seed4af8c199/browsermcp/internal/devices"
	"github.com/seed4af8c199/browsermcp/internal/engines"
	"github.com/seed4af8c199/browsermcp/internal/httpserve"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
	"github.com/seed4af8c199/browsermcp/internal/logbridge"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// Config is the effective configuration. Its JSON shape is the one of the
// --config file (seed 002 §7.1, whose every key it accepts, plus ours) and of
// --print-config.
type Config struct {
	// Name and Version are what the server calls itself in initialize's
	// serverInfo; Version defaults to the binary's version.
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Transport    string   `json:"transport"` // stdio, http or websocket
	Host         string   `json:"host"`
	Port         int      `json:"port"` // -1: not set (stdio); 0: any free port
	APIKeys      []string `json:"apiKeys"`
	AllowedHosts []string `json:"allowedHosts"`
	// OutputDir holds what the server writes for the agent: each
	// session's downloads, and the files of save_state. Empty: a
	// browsermcp directory under the OS temp directory.
	OutputDir string `json:"outputDir"`
	// ImageResponses is allow (screenshots return image content) or omit
	// (they return the path of the file saved under OutputDir/screenshots).
	ImageResponses string `json:"imageResponses"`
	// OutputSchemas lists each tool's typed output schema in tools/list,
	// for clients that validate results against it; off, tools/list costs
	// less than half the tokens.
	OutputSchemas bool `json:"outputSchemas"`
	// ActionResult is what an action's result carries of the page:
	// changes (what changed since the agent's last view), none, or full
	// (the whole outline); ActionResultCap caps the changes in o200k
	// tokens.
	ActionResult    string `json:"actionResult"`
	ActionResultCap int    `json:"actionResultCap"`
	// Codegen is the language of the Playwright code each action's result
	// carries: typescript, python or none; empty is typescript with the
	// testing capability and none without.
	Codegen string `json:"codegen"`
	// RecordingMaxSize (MiB) and RecordingMaxDuration (seconds) bound
	// each trace, video or HAR recording.
	RecordingMaxSize     int `json:"recordingMaxSize"`
	RecordingMaxDuration int `json:"recordingMaxDuration"`

	Browser  BrowserConfig  `json:"browser"`
	Pool     PoolConfig     `json:"pool"`
	Session  SessionConfig  `json:"session"`
	Security SecurityConfig `json:"security"`
	Logging  LoggingConfig  `json:"logging"`
	Snapshot SnapshotConfig `json:"snapshot"`
	// Capabilities are the opt-in tool groups (--caps).
	Capabilities []string `json:"capabilities"`
}

// BrowserConfig is which browser runs, and how.
type BrowserConfig struct {
	Type           string `json:"type"`
	Headless       bool   `json:"headless"`
	ExecutablePath string `json:"executablePath"`
	CDPEndpoint    string `json:"cdpEndpoint"`
	GridURL        string `json:"gridUrl"`
	// GridQueueTimeout is how long, in ms, create_session waits in the
	// Grid's queue for a free browser.
	GridQueueTimeout int `json:"gridQueueTimeout"`
	// GridKeepSessions: on shutdown, let go of the Grid sessions instead
	// of deleting them, for replicas that restart one by one.
	GridKeepSessions bool   `json:"gridKeepSessions"`
	Viewport         string `json:"viewport"`
	Dialogs          string `json:"dialogs"`
	Engine           string `json:"engine"`
	// Args are more browser switches (--browser-arg), merged into ours.
	Args []string `json:"args"`
	// IgnoreHTTPSErrors lets every session's pages load from servers with
	// certificates the browser does not trust.
	IgnoreHTTPSErrors bool `json:"ignoreHttpsErrors"`
	// UserAgent is every session's default user agent; create_session's
	// userAgent overrides it.
	UserAgent string `json:"userAgent"`
	// Device names one of Playwright's devices (devices.json) whose page
	// size, pixel ratio, touch, mobile viewport and user agent every
	// session emulates.
	Device string `json:"device"`
	// Mobile emulates a mobile browser with touch at the viewport size.
	Mobile bool `json:"isMobile"`
	// ProxyServer and ProxyBypass are every session's proxy, and the
	// hosts that skip it; create_session's proxy overrides both.
	ProxyServer string `json:"proxyServer"`
	ProxyBypass string `json:"proxyBypass"`
	// InitScripts are files of JavaScript run in every page of every
	// session before the page's own scripts.
	InitScripts []string `json:"initScripts"`
	// GrantPermissions are granted to every session's pages.
	GrantPermissions []string `json:"grantPermissions"`
	// StorageState is a save_state file every session created without a
	// storageState of its own starts from.
	StorageState string `json:"storageState"`
	// BlockServiceWorkers keeps every session's pages from registering
	// service workers.
	BlockServiceWorkers bool `json:"blockServiceWorkers"`
	// TestIDAttribute is the attribute testid= selectors match.
	TestIDAttribute string `json:"testIdAttribute"`
	// DownloadPath is where sessions save what their pages download, one
	// directory per session under it; empty: under OutputDir.
	DownloadPath string `json:"downloadPath"`
	// UserDataDir is a persistent browser profile for the session named
	// default: its cookies and storage outlive the server. Engine cdp only.
	UserDataDir string `json:"userDataDir"`
}

// PoolConfig is how many browser processes the cdp engine spreads its
// sessions over (seed 002 §7.1 pool).
type PoolConfig struct {
	// MinBrowsers are started at startup and kept (0: none until the
	// first session).
	MinBrowsers int `json:"minBrowsers"`
	// MaxBrowsers caps the browser processes; a new session goes to the
	// least loaded, or to a new browser while each has a session and there
	// are fewer than this.
	MaxBrowsers int `json:"maxBrowsers"`
	// IdleTimeout (ms) closes a browser above MinBrowsers once it has had
	// no session for this long. 0: never.
	IdleTimeout int `json:"idleTimeout"`
}

// SessionConfig bounds the browser sessions.
type SessionConfig struct {
	DefaultTimeout int `json:"defaultTimeout"` // ms of inactivity
	MaxSessions    int `json:"maxSessions"`
	// ActionTimeout and NavigationTimeout (ms) are how long a call waits
	// for its element, and for a navigation, when it names no timeout.
	ActionTimeout     int `json:"actionTimeout"`
	NavigationTimeout int `json:"navigationTimeout"`
	// IdleTimeout (ms) stops the browser once no session has existed for
	// this long; the next session starts it again. 0: never.
	IdleTimeout int `json:"idleTimeout"`
	// PersistentSessions keeps the sessions (ids, owners, cookies,
	// localStorage, open URLs) in StateDir across a restart of the server.
	PersistentSessions bool `json:"persistentSessions"`
	// StateDir is where persistent sessions are saved; empty: browsermcp
	// under the user's state directory (StateDirDefault).
	StateDir string `json:"stateDir"`
}

// SecurityConfig is what pages may load and which risky tools are offered.
type SecurityConfig struct {
	AllowedDomains         []string `json:"allowedDomains"`
	BlockedDomains         []string `json:"blockedDomains"`
	AllowFileURLs          bool     `json:"allowFileUrls"`
	MaxScreenshotSize      int      `json:"maxScreenshotSize"` // bytes
	MaxMessageSize         int      `json:"maxMessageSize"`    // bytes of one JSON-RPC message
	EnableFileUpload       bool     `json:"enableFileUpload"`
	EnableScriptEvaluation bool     `json:"enableScriptEvaluation"`
	// AllowedPaths are directories, besides the output directory, whose
	// files tools may read and write (upload_file, save_state,
	// restore_state).
	AllowedPaths []string `json:"allowedPaths"`
}

// SnapshotConfig is how snapshots print what the page wrote.
type SnapshotConfig struct {
	// MaxTextLength cuts each name, value, text and URL of an outline at
	// this many characters, marked with how many more there are; 0: no
	// cap.
	MaxTextLength int `json:"maxTextLength"`
}

// LoggingConfig is where logs go and which.
type LoggingConfig struct {
	Level  string `json:"level"`
	Format string `json:"format"`
	// Destination is stderr, stdout or file (File; when unset,
	// browsermcp.log in the output directory). Over stdio, stdout carries
	// the protocol, so stdout means stderr there. Empty when loaded: file
	// if File is set, else stderr.
	Destination string `json:"destination"`
	File        string `json:"file"`
}

func defaultConfig() Config {
	return Config{
		Name: "browsermcp", Transport: "stdio", Host: "127.0.0.1", Port: -1,
		APIKeys: []string{}, AllowedHosts: []string{}, ImageResponses: "allow",
		ActionResult: tools.ActionResultChanges, ActionResultCap: tools.DefaultChangesCap,
		RecordingMaxSize: engine.DefaultRecordingMaxBytes >> 20, RecordingMaxDuration: int(engine.DefaultRecordingMaxDuration.Seconds()),
		Browser: BrowserConfig{Type: "chromium", Viewport: "1280x720", Dialogs: "manual", GridQueueTimeout: 60000, Args: []string{}, InitScripts: []string{}, GrantPermissions: []string{},
			TestIDAttribute: engine.DefaultTestIDAttribute},
		Pool: PoolConfig{MinBrowsers: cdp.DefaultPool.MinBrowsers, MaxBrowsers: cdp.DefaultPool.MaxBrowsers, IdleTimeout: 300000},
		Session: SessionConfig{DefaultTimeout: 300000, MaxSessions: 10,
			ActionTimeout: int(engine.DefaultActionTimeout.Milliseconds()), NavigationTimeout: int(engine.DefaultNavigationTimeout.Milliseconds())},
		Security: SecurityConfig{
			AllowedDomains: []string{}, BlockedDomains: []string{}, AllowedPaths: []string{},
			MaxScreenshotSize: 2 << 20, MaxMessageSize: jsonrpc.DefaultMaxMessage, EnableFileUpload: true, EnableScriptEvaluation: true,
		},
		Logging:      LoggingConfig{Level: "info", Format: "text"},
		Snapshot:     SnapshotConfig{MaxTextLength: engine.DefaultMaxText},
		Capabilities: []string{},
	}
}

// option is one setting reachable from a flag, an environment variable and
// a config-file key. Adding a setting is one line in options.
type option struct {
	flags []string // first is the canonical name
	env   string   // BROWSERMCP_...
	key   string   // dotted path in the config file
	usage string
	field func(c *Config) any // pointer to the field: *string, *bool, *int or *[]string
	check func(c *Config) error
}

var options = []option{
	{flags: []string{"browser"}, env: "BROWSERMCP_BROWSER", key: "browser.type", usage: "browser: chromium, firefox or webkit",
		field: func(c *Config) any { return &c.Browser.Type }, check: func(c *Config) error { return oneOf(c.Browser.Type, "chromium", "firefox", "webkit") }},
	{flags: []string{"engine"}, env: "BROWSERMCP_ENGINE", key: "browser.engine", usage: "`engine`: cdp (Chromium only; the default for chromium) or playwright (the default for firefox and webkit)",
		field: func(c *Config) any { return &c.Browser.Engine }, check: func(c *Config) error { return engines.Check(c.EngineConfig()) }},
	{flags: []string{"dialogs"}, env: "BROWSERMCP_DIALOGS", key: "browser.dialogs", usage: "JavaScript dialogs: manual (wait for handle_dialog), accept or dismiss (at once, for crawlers)",
		field: func(c *Config) any { return &c.Browser.Dialogs }, check: func(c *Config) error { return oneOf(c.Browser.Dialogs, "manual", "accept", "dismiss") }},
	{flags: []string{"headless"}, env: "BROWSERMCP_HEADLESS", key: "browser.headless", usage: "run the browser without a window (automatic when there is no display)",
		field: func(c *Config) any { return &c.Browser.Headless }},
	{flags: []string{"executable-path"}, env: browserpath.Env, key: "browser.executablePath", usage: "browser binary `path` (default: search PATH)",
		field: func(c *Config) any { return &c.Browser.ExecutablePath }},
	{flags: []string{"cdp-endpoint"}, env: "BROWSERMCP_CDP_ENDPOINT", key: "browser.cdpEndpoint", usage: "attach to a running Chrome at this `URL` (http://host:port or ws://...)",
		field: func(c *Config) any { return &c.Browser.CDPEndpoint }},
	{flags: []string{"grid-url"}, env: "BROWSERMCP_GRID_URL", key: "browser.gridUrl", usage: "run each session on a browser of the Selenium Grid 4 at this `URL` (http://host:4444)",
		field: func(c *Config) any { return &c.Browser.GridURL }},
	{flags: []string{"grid-queue-timeout"}, env: "BROWSERMCP_GRID_QUEUE_TIMEOUT", key: "browser.gridQueueTimeout", usage: "`ms` create_session waits for the Grid's browser (its queue, then the start) before MAX_SESSIONS_REACHED",
		field: func(c *Config) any { return &c.Browser.GridQueueTimeout }, check: func(c *Config) error { return positive(c.Browser.GridQueueTimeout, "a positive number of ms") }},
	{flags: []string{"grid-keep-sessions"}, env: "BROWSERMCP_GRID_KEEP_SESSIONS", key: "browser.gridKeepSessions", usage: "on shutdown, leave the Grid sessions for another replica to adopt instead of deleting them (rolling restarts)",
		field: func(c *Config) any { return &c.Browser.GridKeepSessions }},
	{flags: []string{"browser-arg"}, env: "BROWSERMCP_BROWSER_ARGS", key: "browser.args", usage: "extra browser `switch` such as --lang=fr for the browsers we start, locally or on the Grid (repeatable; environment: comma-separated); list switches such as --disable-features merge into ours",
		field: func(c *Config) any { return &c.Browser.Args }, check: func(c *Config) error { return engines.CheckArgs(c.EngineConfig()) }},
	{flags: []string{"viewport-size"}, env: "BROWSERMCP_VIEWPORT_SIZE", key: "browser.viewport", usage: "page size `WxH`",
		field: func(c *Config) any { return &c.Browser.Viewport }, check: func(c *Config) error { _, err := parseViewport(c.Browser.Viewport); return err }},
	{flags: []string{"ignore-https-errors"}, env: "BROWSERMCP_IGNORE_HTTPS_ERRORS", key: "browser.ignoreHttpsErrors", usage: "let pages load from servers whose certificate is not trusted (self-signed, expired)",
		field: func(c *Config) any { return &c.Browser.IgnoreHTTPSErrors }},
	{flags: []string{"user-agent"}, env: "BROWSERMCP_USER_AGENT", key: "browser.userAgent", usage: "every session's user `agent` (create_session's userAgent overrides it)",
		field: func(c *Config) any { return &c.Browser.UserAgent }, check: func(c *Config) error {
			return engine.SessionOptions{UserAgent: c.Browser.UserAgent}.Validate()
		}},
	{flags: []string{"device"}, env: "BROWSERMCP_DEVICE", key: "browser.device", usage: "emulate this `device` in every session: its size, pixel ratio, touch and user agent; any of Playwright's device names (\"iPhone 13\", \"Pixel 7\", ...; see README)",
		field: func(c *Config) any { return &c.Browser.Device }, check: func(c *Config) error { return checkDevice(c.Browser.Device) }},
	{flags: []string{"mobile"}, env: "BROWSERMCP_MOBILE", key: "browser.isMobile", usage: "emulate a mobile browser with touch, at the viewport size",
		field: func(c *Config) any { return &c.Browser.Mobile }},
	{flags: []string{"proxy-server"}, env: "BROWSERMCP_PROXY_SERVER", key: "browser.proxyServer", usage: "every session's proxy `URL` (http://host:port, socks5://host:port); create_session's proxy overrides it",
		field: func(c *Config) any { return &c.Browser.ProxyServer }, check: func(c *Config) error {
			return engine.SessionOptions{Proxy: c.Browser.ProxyServer}.Validate()
		}},
	{flags: []string{"proxy-bypass"}, env: "BROWSERMCP_PROXY_BYPASS", key: "browser.proxyBypass", usage: "comma-separated `hosts` that skip --proxy-server (.example.com, localhost:8080)",
		field: func(c *Config) any { return &c.Browser.ProxyBypass }, check: func(c *Config) error {
			if c.Browser.ProxyBypass != "" && c.Browser.ProxyServer == "" {
				return errors.New("needs --proxy-server")
			}
			return nil
		}},
	{flags: []string{"init-script"}, env: "BROWSERMCP_INIT_SCRIPT", key: "browser.initScripts", usage: "JavaScript `file` run in every page of every session before the page's own scripts (repeatable)",
		field: func(c *Config) any { return &c.Browser.InitScripts }, check: func(c *Config) error { _, err := readInitScripts(c.Browser.InitScripts); return err }},
	{flags: []string{"grant-permissions"}, env: "BROWSERMCP_GRANT_PERMISSIONS", key: "browser.grantPermissions", usage: "`permissions` granted to every session's pages, comma-separated or repeated: geolocation, notifications, clipboard-read, clipboard-write, camera, microphone, ...",
		field: func(c *Config) any { return &c.Browser.GrantPermissions }, check: func(c *Config) error {
			return engine.SessionOptions{Permissions: splitList(c.Browser.GrantPermissions)}.Validate()
		}},
	{flags: []string{"storage-state"}, env: "BROWSERMCP_STORAGE_STATE", key: "browser.storageState", usage: "save_state `file` (cookies, localStorage) that every session created without its own storageState starts from",
		field: func(c *Config) any { return &c.Browser.StorageState }, check: func(c *Config) error { _, err := readStorageState(c.Browser.StorageState); return err }},
	{flags: []string{"block-service-workers"}, env: "BROWSERMCP_BLOCK_SERVICE_WORKERS", key: "browser.blockServiceWorkers", usage: "keep every session's pages from registering service workers",
		field: func(c *Config) any { return &c.Browser.BlockServiceWorkers }},
	{flags: []string{"test-id-attribute"}, env: "BROWSERMCP_TEST_ID_ATTRIBUTE", key: "browser.testIdAttribute", usage: "`attribute` that testid=VALUE selectors match",
		field: func(c *Config) any { return &c.Browser.TestIDAttribute }, check: func(c *Config) error { return engine.CheckTestIDAttribute(c.Browser.TestIDAttribute) }},
	{flags: []string{"download-path"}, env: "BROWSERMCP_DOWNLOAD_PATH", key: "browser.downloadPath", usage: "`directory` where sessions save downloads, one subdirectory per session (default: under --output-dir)",
		field: func(c *Config) any { return &c.Browser.DownloadPath }, check: func(c *Config) error { return notAFile(c.Browser.DownloadPath) }},
	{flags: []string{"user-data-dir"}, env: "BROWSERMCP_USER_DATA_DIR", key: "browser.userDataDir", usage: "persistent browser profile `directory` of the session named default: its cookies and storage survive a restart (engine cdp)",
		field: func(c *Config) any { return &c.Browser.UserDataDir }, check: func(c *Config) error {
			if err := notAFile(c.Browser.UserDataDir); err != nil {
				return err
			}
			return engines.CheckUserDataDir(c.EngineConfig())
		}},
	{flags: []string{"pool-min-browsers"}, env: "BROWSERMCP_POOL_MIN_BROWSERS", key: "pool.minBrowsers", usage: "`n` browser processes started at startup and kept running (engine cdp)",
		field: func(c *Config) any { return &c.Pool.MinBrowsers }, check: func(c *Config) error {
			if c.Pool.MinBrowsers < 0 || c.Pool.MinBrowsers > c.Pool.MaxBrowsers {
				return fmt.Errorf("want 0 to the pool's maxBrowsers (%d)", c.Pool.MaxBrowsers)
			}
			return nil
		}},
	{flags: []string{"pool-max-browsers"}, env: "BROWSERMCP_POOL_MAX_BROWSERS", key: "pool.maxBrowsers", usage: "at most `n` browser processes the sessions are spread over, least loaded first (engine cdp)",
		field: func(c *Config) any { return &c.Pool.MaxBrowsers }, check: func(c *Config) error {
			if c.Pool.MaxBrowsers < 1 || c.Pool.MaxBrowsers > cdp.MaxPoolBrowsers {
				return fmt.Errorf("want 1 to %d", cdp.MaxPoolBrowsers)
			}
			return engines.CheckPool(c.EngineConfig())
		}},
	{flags: []string{"pool-idle-timeout"}, env: "BROWSERMCP_POOL_IDLE_TIMEOUT", key: "pool.idleTimeout", usage: "close a browser above --pool-min-browsers after this many `ms` without a session (0: never)",
		field: func(c *Config) any { return &c.Pool.IdleTimeout }, check: func(c *Config) error {
			if c.Pool.IdleTimeout < 0 {
				return errors.New("want 0 (never) or a positive number of ms")
			}
			return nil
		}},
	{flags: []string{"sessionTimeout", "session-timeout"}, env: "BROWSERMCP_SESSION_TIMEOUT", key: "session.defaultTimeout", usage: "idle `ms` before a session expires",
		field: func(c *Config) any { return &c.Session.DefaultTimeout }, check: func(c *Config) error { return positive(c.Session.DefaultTimeout, "a positive number of ms") }},
	{flags: []string{"maxSessions", "max-sessions"}, env: "BROWSERMCP_MAX_SESSIONS", key: "session.maxSessions", usage: "maximum open sessions",
		field: func(c *Config) any { return &c.Session.MaxSessions }, check: func(c *Config) error { return positive(c.Session.MaxSessions, "at least 1") }},
	{flags: []string{"timeout-action"}, env: "BROWSERMCP_TIMEOUT_ACTION", key: "session.actionTimeout", usage: "`ms` an element action waits for its element when the call gives no timeout",
		field: func(c *Config) any { return &c.Session.ActionTimeout }, check: func(c *Config) error { return timeoutMs(c.Session.ActionTimeout) }},
	{flags: []string{"timeout-navigation"}, env: "BROWSERMCP_TIMEOUT_NAVIGATION", key: "session.navigationTimeout", usage: "`ms` a navigation may take when the call gives no timeout",
		field: func(c *Config) any { return &c.Session.NavigationTimeout }, check: func(c *Config) error { return timeoutMs(c.Session.NavigationTimeout) }},
	{flags: []string{"idle-timeout"}, env: "BROWSERMCP_IDLE_TIMEOUT", key: "session.idleTimeout", usage: "stop the browser after this many `ms` without a session, and start it again for the next (0: never)",
		field: func(c *Config) any { return &c.Session.IdleTimeout }, check: func(c *Config) error {
			switch {
			case c.Session.IdleTimeout < 0:
				return errors.New("want 0 (never) or a positive number of ms")
			case c.Session.IdleTimeout > 0 && c.Browser.GridURL != "":
				return errors.New("has no effect with --grid-url, where each session has a browser of its own")
			}
			return nil
		}},
	{flags: []string{"persistent-sessions"}, env: "BROWSERMCP_PERSISTENT_SESSIONS", key: "session.persistentSessions", usage: "keep sessions (ids, cookies, localStorage, open URLs) across a restart of the server, in --state-dir",
		field: func(c *Config) any { return &c.Session.PersistentSessions }, check: func(c *Config) error {
			if c.Session.PersistentSessions && (c.Browser.GridURL != "" || c.Browser.CDPEndpoint != "") {
				return errors.New("needs a browser of our own: not with --grid-url or --cdp-endpoint")
			}
			return nil
		}},
	{flags: []string{"state-dir"}, env: "BROWSERMCP_STATE_DIR", key: "session.stateDir", usage: "`directory` where --persistent-sessions are saved (default: browsermcp under $XDG_STATE_HOME, ~/.local/state)",
		field: func(c *Config) any { return &c.Session.StateDir }},
	{flags: []string{"server-name"}, env: "BROWSERMCP_SERVER_NAME", key: "name", usage: "the server's `name` in initialize's serverInfo",
		field: func(c *Config) any { return &c.Name }, check: func(c *Config) error { return nonEmpty(c.Name) }},
	{flags: []string{"server-version"}, env: "BROWSERMCP_SERVER_VERSION", key: "version", usage: "the server's `version` in initialize's serverInfo",
		field: func(c *Config) any { return &c.Version }, check: func(c *Config) error { return nonEmpty(c.Version) }},
	{flags: []string{"transport"}, env: "BROWSERMCP_TRANSPORT", key: "transport", usage: "stdio, http (Streamable HTTP and SSE) or websocket (MCP over a WebSocket at /ws); --port implies http",
		field: func(c *Config) any { return &c.Transport }, check: func(c *Config) error { return oneOf(c.Transport, "stdio", "http", "websocket") }},
	{flags: []string{"port"}, env: "BROWSERMCP_PORT", key: "port", usage: "serve MCP over HTTP on this `port` (0: any free port) instead of stdio",
		field: func(c *Config) any { return &c.Port }, check: func(c *Config) error {
			if c.Port < -1 || c.Port > 65535 {
				return errors.New("want a port from 0 to 65535")
			}
			return nil
		}},
	{flags: []string{"host"}, env: "BROWSERMCP_HOST", key: "host", usage: "HTTP listen `address`",
		field: func(c *Config) any { return &c.Host }, check: func(c *Config) error { return nonEmpty(c.Host) }},
	{flags: []string{"api-key"}, env: "BROWSERMCP_API_KEY", key: "apiKeys", usage: "HTTP bearer `key` of at least 8 characters, no spaces or commas (repeatable; environment: comma-separated); one is generated when none is given",
		field: func(c *Config) any { return &c.APIKeys }, check: func(c *Config) error {
			for _, k := range c.APIKeys {
				if len(k) < 8 || strings.ContainsAny(k, " \t\r\n,") {
					return errors.New("an API key needs at least 8 characters and no spaces or commas")
				}
			}
			return nil
		}},
	{flags: []string{"output-dir"}, env: "BROWSERMCP_OUTPUT_DIR", key: "outputDir", usage: "`directory` for downloads and saved state (default: browsermcp under the OS temp directory)",
		field: func(c *Config) any { return &c.OutputDir }},
	{flags: []string{"image-responses"}, env: "BROWSERMCP_IMAGE_RESPONSES", key: "imageResponses", usage: "allow (screenshots return the image) or omit (they return the path of the file saved under --output-dir/screenshots, for clients that cannot take images)",
		field: func(c *Config) any { return &c.ImageResponses }, check: func(c *Config) error { return oneOf(c.ImageResponses, "allow", "omit") }},
	{flags: []string{"output-schemas"}, env: "BROWSERMCP_OUTPUT_SCHEMAS", key: "outputSchemas", usage: "list each tool's typed output schema in tools/list, for clients that validate results against it (results carry structuredContent either way)",
		field: func(c *Config) any { return &c.OutputSchemas }},
	{flags: []string{"action-result"}, env: "BROWSERMCP_ACTION_RESULT", key: "actionResult", usage: "what an action's result carries of the page: changes (what changed since the last view), none, or full (the whole outline)",
		field: func(c *Config) any { return &c.ActionResult }, check: func(c *Config) error {
			return oneOf(c.ActionResult, tools.ActionResultChanges, tools.ActionResultNone, tools.ActionResultFull)
		}},
	{flags: []string{"codegen"}, env: "BROWSERMCP_CODEGEN", key: "codegen", usage: "`language` of the Playwright code each action's result carries: typescript, python or none (default none; typescript with --caps testing)",
		field: func(c *Config) any { return &c.Codegen }, check: func(c *Config) error { _, err := codegen.ParseLanguage(c.Codegen); return err }},
	{flags: []string{"action-result-cap"}, env: "BROWSERMCP_ACTION_RESULT_CAP", key: "actionResultCap", usage: "most o200k `tokens` an action's changes or new outline may take",
		field: func(c *Config) any { return &c.ActionResultCap }, check: func(c *Config) error {
			if c.ActionResultCap < 100 || c.ActionResultCap > 1000000 {
				return errors.New("want from 100 to 1000000 tokens")
			}
			return nil
		}},
	{flags: []string{"recording-max-size"}, env: "BROWSERMCP_RECORDING_MAX_SIZE", key: "recordingMaxSize", usage: "largest trace, video or HAR file in `MiB`: a recording stops there and says so",
		field: func(c *Config) any { return &c.RecordingMaxSize }, check: func(c *Config) error { return positive(c.RecordingMaxSize, "a positive number of MiB") }},
	{flags: []string{"recording-max-duration"}, env: "BROWSERMCP_RECORDING_MAX_DURATION", key: "recordingMaxDuration", usage: "longest trace, video or HAR recording in `seconds`: it stops there and says so",
		field: func(c *Config) any { return &c.RecordingMaxDuration }, check: func(c *Config) error { return positive(c.RecordingMaxDuration, "a positive number of seconds") }},
	{flags: []string{"allowed-hosts"}, env: "BROWSERMCP_ALLOWED_HOSTS", key: "allowedHosts", usage: "extra `host` names accepted in Host and Origin headers (repeatable; * accepts any)",
		field: func(c *Config) any { return &c.AllowedHosts }},
	{flags: []string{"allowed-domains"}, env: "BROWSERMCP_ALLOWED_DOMAINS", key: "security.allowedDomains", usage: "only let pages load from these `hosts` (repeatable; *.example.com, host:port)",
		field: func(c *Config) any { return &c.Security.AllowedDomains }, check: func(c *Config) error { _, err := engine.NewPolicy(c.Security.AllowedDomains, nil, false); return err }},
	{flags: []string{"blocked-domains"}, env: "BROWSERMCP_BLOCKED_DOMAINS", key: "security.blockedDomains", usage: "never let pages load from these `hosts` (repeatable)",
		field: func(c *Config) any { return &c.Security.BlockedDomains }, check: func(c *Config) error { _, err := engine.NewPolicy(nil, c.Security.BlockedDomains, false); return err }},
	{flags: []string{"allow-file-urls"}, env: "BROWSERMCP_ALLOW_FILE_URLS", key: "security.allowFileUrls", usage: "let pages open file: URLs",
		field: func(c *Config) any { return &c.Security.AllowFileURLs }},
	{flags: []string{"max-screenshot-size"}, env: "BROWSERMCP_MAX_SCREENSHOT_SIZE", key: "security.maxScreenshotSize", usage: "largest screenshot in `bytes`",
		field: func(c *Config) any { return &c.Security.MaxScreenshotSize }, check: func(c *Config) error { return positive(c.Security.MaxScreenshotSize, "a positive number of bytes") }},
	{flags: []string{"max-message-size"}, env: "BROWSERMCP_MAX_MESSAGE_SIZE", key: "security.maxMessageSize", usage: "largest JSON-RPC message in `bytes`, over stdio and HTTP (at least 65536)",
		field: func(c *Config) any { return &c.Security.MaxMessageSize }, check: func(c *Config) error {
			if c.Security.MaxMessageSize < 64<<10 {
				return errors.New("needs at least 65536 bytes")
			}
			return nil
		}},
	{flags: []string{"enable-file-upload"}, env: "BROWSERMCP_ENABLE_FILE_UPLOAD", key: "security.enableFileUpload", usage: "offer the upload_file tool and let tools name server files (save_state and restore_state path)",
		field: func(c *Config) any { return &c.Security.EnableFileUpload }},
	{flags: []string{"allowed-paths"}, env: "BROWSERMCP_ALLOWED_PATHS", key: "security.allowedPaths", usage: "`directories` besides --output-dir whose files upload_file, save_state and restore_state may use (repeatable)",
		field: func(c *Config) any { return &c.Security.AllowedPaths }},
	{flags: []string{"enable-script-evaluation"}, env: "BROWSERMCP_ENABLE_SCRIPT_EVALUATION", key: "security.enableScriptEvaluation", usage: "offer the evaluate tool",
		field: func(c *Config) any { return &c.Security.EnableScriptEvaluation }},
	{flags: []string{"snapshot-max-text"}, env: "BROWSERMCP_SNAPSHOT_MAX_TEXT", key: "snapshot.maxTextLength", usage: "cut each name, value, text and URL of a snapshot at this many `characters`, marked \"…\" [+N chars] (0: no cap; get_text returns strings whole)",
		field: func(c *Config) any { return &c.Snapshot.MaxTextLength }, check: func(c *Config) error {
			if c.Snapshot.MaxTextLength < 0 || c.Snapshot.MaxTextLength > maxSnapshotText {
				return fmt.Errorf("want 0 (no cap) to %d", maxSnapshotText)
			}
			return nil
		}},
	{flags: []string{"caps"}, env: "BROWSERMCP_CAPS", key: "capabilities", usage: "opt-in tool `groups`, comma-separated or repeated: network, console, pdf, state, vision, testing, devtools, emulation or all",
		field: func(c *Config) any { return &c.Capabilities }, check: func(c *Config) error { _, err := tools.ParseCaps(strings.Join(c.Capabilities, ",")); return err }},
	{flags: []string{"log-level"}, env: "BROWSERMCP_LOG_LEVEL", key: "logging.level", usage: "debug, info, warn or error",
		field: func(c *Config) any { return &c.Logging.Level }, check: func(c *Config) error { return oneOf(c.Logging.Level, "debug", "info", "warn", "error") }},
	{flags: []string{"log-format"}, env: "BROWSERMCP_LOG_FORMAT", key: "logging.format", usage: "text or json",
		field: func(c *Config) any { return &c.Logging.Format }, check: func(c *Config) error { return oneOf(c.Logging.Format, "text", "json") }},
	{flags: []string{"log-file"}, env: "BROWSERMCP_LOG_FILE", key: "logging.file", usage: "write logs to this `file` instead of stderr",
		field: func(c *Config) any { return &c.Logging.File }},
	{flags: []string{"log-destination"}, env: "BROWSERMCP_LOG_DESTINATION", key: "logging.destination", usage: "`where` logs go: stderr, stdout (stderr over stdio, where stdout is the protocol's) or file (--log-file, else browsermcp.log in --output-dir)",
		field: func(c *Config) any { return &c.Logging.Destination }, check: func(c *Config) error {
			switch d := c.Logging.Destination; {
			case oneOf(d, "stderr", "stdout", "file") != nil:
				return oneOf(d, "stderr", "stdout", "file")
			case d != "file" && c.Logging.File != "":
				return fmt.Errorf("%s, but logging.file (--log-file) is set: use file", d)
			}
			return nil
		}},
}

// envConfigFile names the config file when --config is not given.
const envConfigFile = "BROWSERMCP_CONFIG"

// ErrUsage marks errors that exit with status 2.
var ErrUsage = errors.New("usage")

// ErrPrinted means the command printed what was asked (help, version,
// configuration) and exits with status 0.
var ErrPrinted = errors.New("printed")

// setting is one value a flag or variable gave, applied in order.
type setting struct {
	opt    *option
	source string // "flag -x" or "BROWSERMCP_X"
	value  string
}

// Load builds the configuration from the command-line arguments (without
// the program name) and the environment: defaults < file < environment <
// flags. Every problem in the file, the environment and the final values is
// reported at once, wrapped in ErrUsage. --help, --version and
// --print-config print to stdout and return ErrPrinted.
func Load(args []string, getenv func(string) string, stdout io.Writer, version string) (Config, error) {
	cfg := defaultConfig()
	fs := flag.NewFlagSet("browsermcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var flagged []setting
	for i := range options {
		o := &options[i]
		for _, name := range o.flags {
			fs.Var(&recorder{opt: o, name: name, list: &flagged, isBool: isBool(o.field(&cfg))}, name, o.usage)
		}
	}
	var configFile string
	var printConfig, showVersion bool
	fs.StringVar(&configFile, "config", "", "read settings from this JSON `file` (environment: "+envConfigFile+")")
	fs.BoolVar(&printConfig, "print-config", false, "print the effective configuration as JSON and exit")
	fs.BoolVar(&showVersion, "version", false, "print the version and exit")
	// The flag package prints usage on every error; only --help should.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return cfg, ErrPrinted
		}
		return cfg, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if showVersion {
		fmt.Fprintln(stdout, "browsermcp", version)
		return cfg, ErrPrinted
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}

	source := map[*option]string{}
	var problems []string
	if configFile == "" {
		configFile = getenv(envConfigFile)
	}
	if configFile != "" {
		set, errs := readConfigFile(configFile, &cfg)
		problems = append(problems, errs...)
		for i := range options {
			if set[options[i].key] {
				source[&options[i]] = configFile + ": " + options[i].key
			}
		}
	}
	var envSet []setting
	for i := range options {
		o := &options[i]
		if v, ok := lookupEnv(getenv, o.env); ok {
			envSet = append(envSet, setting{opt: o, source: o.env, value: v})
		}
	}
	// A higher layer replaces a list from a lower one; repeated flags add up.
	bad := map[*option]bool{}
	apply := func(layer []setting, fromEnv bool) {
		reset := map[*option]bool{}
		for _, st := range layer {
			ptr := st.opt.field(&cfg)
			if list, ok := ptr.(*[]string); ok && !reset[st.opt] {
				*list, reset[st.opt] = nil, true
			}
			if err := setValue(ptr, st.value, fromEnv); err != nil {
				problems = append(problems, fmt.Sprintf("invalid value %q for %s: %v", st.value, st.source, err))
				bad[st.opt] = true
			}
			source[st.opt] = st.source
		}
	}
	apply(envSet, true)
	apply(flagged, false)
	{
		if cfg.Port >= 0 && source[optionByKey("transport")] == "" {
			cfg.Transport = "http"
		}
		if cfg.Transport != "stdio" && cfg.Port < 0 {
			cfg.Port = 0
		}
		if cfg.Version == "" {
			cfg.Version = version
		}
		if cfg.Logging.Destination == "" {
			cfg.Logging.Destination = "stderr"
			if cfg.Logging.File != "" {
				cfg.Logging.Destination = "file"
			}
		}
		// The seed's schema makes the file optional.
		if cfg.Logging.Destination == "file" && cfg.Logging.File == "" {
			cfg.Logging.File = filepath.Join(cfg.ResolvedOutputDir(), "browsermcp.log")
		}
		// A minimum above the default maximum raises the maximum, unless
		// one was given; an error about it then names the minimum.
		if maxOpt := optionByKey("pool.maxBrowsers"); source[maxOpt] == "" && cfg.Pool.MinBrowsers > cfg.Pool.MaxBrowsers {
			cfg.Pool.MaxBrowsers = cfg.Pool.MinBrowsers
			source[maxOpt] = source[optionByKey("pool.minBrowsers")]
		}
		// A device brings its page size, unless one was given.
		if d, ok := devices.Lookup(cfg.Browser.Device); ok && source[optionByKey("browser.viewport")] == "" {
			cfg.Browser.Viewport = fmt.Sprintf("%dx%d", d.Viewport.Width, d.Viewport.Height)
		}
		for i := range options {
			o := &options[i]
			if o.check == nil || bad[o] {
				continue
			}
			if err := o.check(&cfg); err != nil {
				// An option left at its default fails because of others
				// (--device with --browser firefox fails the engine's
				// check): the error names them, and the default is no
				// value the user gave.
				if where := source[o]; where != "" {
					problems = append(problems, fmt.Sprintf("invalid value %s for %s: %v", show(o.field(&cfg)), where, err))
				} else {
					problems = append(problems, err.Error())
				}
			}
		}
	}
	if len(problems) > 0 {
		return cfg, fmt.Errorf("%w: %s", ErrUsage, strings.Join(problems, "\n  "))
	}
	if printConfig {
		printJSON(stdout, cfg)
		return cfg, ErrPrinted
	}
	return cfg, nil
}

// lookupEnv treats an empty variable as unset, as shells make it easy to
// export one by accident.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

func optionByKey(key string) *option {
	for i := range options {
		if options[i].key == key {
			return &options[i]
		}
	}
	return nil
}

// flagSource names a flag as an error message shows it.
func flagSource(name string) string { return "flag -" + name }

// recorder is a flag.Value that records each occurrence, so flags apply after
// the file and the environment.
type recorder struct {
	opt    *option
	name   string
	list   *[]setting
	isBool bool
}

func (r *recorder) String() string { return "" }

func (r *recorder) Set(v string) error {
	// Check the type now, so that flag reports a bad value with its usage.
	var probe Config
	if err := setValue(r.opt.field(&probe), v, false); err != nil {
		return err
	}
	*r.list = append(*r.list, setting{opt: r.opt, source: flagSource(r.name), value: v})
	return nil
}

func (r *recorder) IsBoolFlag() bool { return r.isBool }

func isBool(p any) bool { _, ok := p.(*bool); return ok }

// setValue parses v into the field ptr points to. A list from the
// environment is comma-separated; a list flag appends one value.
func setValue(ptr any, v string, fromEnv bool) error {
	switch p := ptr.(type) {
	case *string:
		*p = v
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("want true or false")
		}
		*p = b
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return errors.New("want a whole number")
		}
		*p = n
	case *[]string:
		if fromEnv {
			*p = nil
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					*p = append(*p, s)
				}
			}
			return nil
		}
		*p = append(*p, v)
	default:
		panic(fmt.Sprintf("option field of type %T", ptr))
	}
	return nil
}

// readConfigFile decodes the file into cfg strictly: it returns the keys it
// set and every unknown key and badly typed value.
func readConfigFile(path string, cfg *Config) (map[string]bool, []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, []string{fmt.Sprintf("reading the config file: %v", err)}
	}
	set := map[string]bool{}
	var problems []string
	decodeStrict(b, reflect.ValueOf(cfg).Elem(), "", set, &problems)
	for i := range problems {
		problems[i] = path + ": " + problems[i]
	}
	return set, problems
}

func decodeStrict(raw []byte, v reflect.Value, path string, set map[string]bool, problems *[]string) {
	if v.Kind() != reflect.Struct {
		n := reflect.New(v.Type())
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(n.Interface()); err != nil || string(bytes.TrimSpace(raw)) == "null" {
			*problems = append(*problems, fmt.Sprintf("%s: want %s, got %s", path, kindName(v), bytes.TrimSpace(raw)))
			return
		}
		v.Set(n.Elem())
		set[path] = true
		return
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		where := path
		if where == "" {
			where = "the file"
		}
		*problems = append(*problems, fmt.Sprintf("%s: want a JSON object: %v", where, err))
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name := k
		if path != "" {
			name = path + "." + k
		}
		f, ok := fieldByTag(v, k)
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s: unknown key", name))
			continue
		}
		decodeStrict(obj[k], f, name, set, problems)
	}
}

func fieldByTag(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func kindName(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "a whole number"
	case reflect.Slice:
		return "an array of strings"
	}
	return v.Kind().String()
}

func show(p any) string {
	b, _ := json.Marshal(reflect.ValueOf(p).Elem().Interface())
	return string(b)
}

func oneOf(v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("want %s", strings.Join(allowed, ", "))
}

func positive(n int, want string) error {
	if n <= 0 {
		return errors.New("want " + want)
	}
	return nil
}

// splitList splits each comma-separated item of l.
func splitList(l []string) []string {
	var out []string
	for _, item := range l {
		for _, s := range strings.Split(item, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// readStorageState reads and checks a save_state file; "" is none.
func readStorageState(path string) (*engine.StorageState, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := &engine.StorageState{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		return nil, fmt.Errorf("not a save_state file: %v", err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("not a save_state file: %v", err)
	}
	return st, nil
}

// readInitScripts reads the --init-script files.
func readInitScripts(paths []string) ([]string, error) {
	var srcs []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, string(b))
	}
	return srcs, nil
}

// timeoutMs checks a default timeout: positive, and no longer than a
// call may take.
func timeoutMs(n int) error {
	if n <= 0 || time.Duration(n)*time.Millisecond > engine.MaxCallTimeout {
		return fmt.Errorf("want a number of ms from 1 to %d", engine.MaxCallTimeout.Milliseconds())
	}
	return nil
}

// notAFile checks a directory setting: "" (unset), a directory, or a path
// that does not exist yet.
func notAFile(dir string) error {
	if dir == "" {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return errors.New("is a file, not a directory")
	}
	return nil
}

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// printJSON prints the configuration with API keys replaced by their
// identities, which is also what logs show.
func printJSON(w io.Writer, cfg Config) {
	keys := make([]string, len(cfg.APIKeys))
	for i, k := range cfg.APIKeys {
		keys[i] = httpserve.KeyIdentity(k)
	}
	cfg.APIKeys = keys
	b, _ := json.MarshalIndent(cfg, "", "  ")
	fmt.Fprintln(w, string(b))
}

// usage prints the flags GNU-style (--name), each setting once with its
// aliases, its default, its variable and its config-file key.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: browsermcp [serve] [flags]\n       browsermcp install driver|firefox|chromium|webkit  (see browsermcp install --help)\n\nAn MCP server that drives real browsers in isolated sessions, over stdio (default)\nor HTTP (--port): Streamable HTTP at /mcp, SSE at /sse, health at /healthz.\n\nPrecedence: defaults < --config file < environment < flags.\n\nFlags:\n")
	def := defaultConfig()
	type entry struct{ names, usage string }
	var entries []entry
	for i := range options {
		o := &options[i]
		// The dashed spelling first: older camelCase aliases follow it.
		names := slices.Clone(o.flags)
		slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(dashRank(a), dashRank(b)) })
		f := fs.Lookup(o.flags[0])
		arg, u := flag.UnquoteUsage(f)
		var ns []string
		for _, n := range names {
			ns = append(ns, "--"+n)
		}
		head := strings.Join(ns, ", ")
		if arg != "" && !isBool(o.field(&def)) {
			head += " " + arg
		}
		entries = append(entries, entry{head, fmt.Sprintf("%s (default %s; env %s, config %s)", u, showDefault(o, &def), o.env, o.key)})
	}
	for _, name := range []string{"config", "print-config", "version"} {
		f := fs.Lookup(name)
		arg, u := flag.UnquoteUsage(f)
		head := "--" + name
		if arg != "" && name == "config" {
			head += " " + arg
		}
		entries = append(entries, entry{head, u})
	}
	entries = append(entries, entry{"--help", "print this help and exit"})
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.names, b.names) })
	for _, e := range entries {
		fmt.Fprintf(w, "  %s\n    \t%s\n", e.names, e.usage)
	}
}

// dashRank sorts a dashed flag name before a camelCase alias.
func dashRank(name string) string {
	if strings.ToLower(name) == name {
		return "0" + name
	}
	return "1" + name
}

// showDefault is an option's default as --help shows it.
func showDefault(o *option, def *Config) string {
	switch p := o.field(def).(type) {
	case *string:
		switch o.key {
		case "browser.engine":
			return "per --browser"
		case "version":
			return "the binary's"
		case "logging.destination":
			return "file with --log-file, else stderr"
		}
		if *p == "" {
			return "none"
		}
		return strconv.Quote(*p)
	case *[]string:
		if len(*p) == 0 {
			return "none"
		}
		return strings.Join(*p, ",")
	case *int:
		if o.key == "port" {
			return "none: stdio"
		}
		return strconv.Itoa(*p)
	}
	return show(o.field(def))
}

// parseViewport reads a page size, WIDTHxHEIGHT.
func parseViewport(s string) (engine.Viewport, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi <= 0 || hi <= 0 || wi > 10000 || hi > 10000 {
		return engine.Viewport{}, errors.New("want WIDTHxHEIGHT, e.g. 1280x720")
	}
	return engine.Viewport{Width: wi, Height: hi}, nil
}

// The methods below hand each part of the server its settings. They rely on
// Load having checked the values, and ignore errors it has already reported.

// EngineConfig is what choosing and building the engine takes.
func (c Config) EngineConfig() engines.Config {
	b, sec := c.Browser, c.Security
	vp, _ := parseViewport(b.Viewport)
	return engines.Config{
		Engine: b.Engine, Browser: b.Type, Headless: b.Headless, ExecutablePath: b.ExecutablePath, CDPEndpoint: b.CDPEndpoint,
		GridURL: b.GridURL, GridQueueTimeout: time.Duration(b.GridQueueTimeout) * time.Millisecond, GridKeepSessions: b.GridKeepSessions,
		Viewport: vp, Dialogs: engine.DialogPolicy(b.Dialogs),
		AllowedDomains: sec.AllowedDomains, BlockedDomains: sec.BlockedDomains, AllowFileURLs: sec.AllowFileURLs,
		BrowserArgs:  b.Args,
		UserDataDir:  b.UserDataDir,
		ProxyServer:  b.ProxyServer,
		SessionFlags: c.sessionFlags(),
		Pool: cdp.Pool{MinBrowsers: c.Pool.MinBrowsers, MaxBrowsers: c.Pool.MaxBrowsers,
			IdleTimeout: time.Duration(c.Pool.IdleTimeout) * time.Millisecond},
	}
}

// sessionFlags names the settings given that set up every session, as
// flags, so that an engine that cannot honour one is refused at startup.
func (c Config) sessionFlags() []string {
	var f []string
	for _, o := range []struct {
		flag string
		set  bool
	}{
		{"--ignore-https-errors", c.Browser.IgnoreHTTPSErrors}, {"--user-agent", c.Browser.UserAgent != ""},
		{"--device", c.Browser.Device != ""}, {"--mobile", c.Browser.Mobile}, {"--proxy-server", c.Browser.ProxyServer != ""},
		{"--grant-permissions", len(c.Browser.GrantPermissions) > 0},
	} {
		if o.set {
			f = append(f, o.flag)
		}
	}
	return f
}

// ManagerConfig is the sessions' idle timeout, their number and their
// default viewport.
func (c Config) ManagerConfig() sessions.Config {
	vp, _ := parseViewport(c.Browser.Viewport)
	return sessions.Config{
		Timeout:     time.Duration(c.Session.DefaultTimeout) * time.Millisecond,
		MaxSessions: c.Session.MaxSessions,
		Defaults:    c.sessionDefaults(vp),
		OutputDir:   c.ResolvedOutputDir(),
		DownloadDir: c.Browser.DownloadPath,
		// The session named default runs on the persistent profile.
		ProfileDefault: c.Browser.UserDataDir != "",
		IdleTimeout:    time.Duration(c.Session.IdleTimeout) * time.Millisecond,
		StateDir:       c.ResolvedStateDir(),
		Timeouts: engine.Timeouts{
			Action:     time.Duration(c.Session.ActionTimeout) * time.Millisecond,
			Navigation: time.Duration(c.Session.NavigationTimeout) * time.Millisecond,
		},
	}
}

// ResolvedStateDir is where persistent sessions are saved, or "" when
// they are off: --state-dir, else browsermcp under $XDG_STATE_HOME, else
// ~/.local/state, else the user's cache directory.
func (c Config) ResolvedStateDir() string {
	if !c.Session.PersistentSessions {
		return ""
	}
	if c.Session.StateDir != "" {
		return c.Session.StateDir
	}
	return StateDirDefault(os.Getenv)
}

// StateDirDefault is the default --state-dir.
func StateDirDefault(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "browsermcp")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "browsermcp")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "browsermcp", "state")
	}
	return filepath.Join(os.TempDir(), "browsermcp-state")
}

// sessionDefaults are the options every session gets where create_session
// gives none: the device's, then the flags'.
func (c Config) sessionDefaults(vp engine.Viewport) engine.SessionOptions {
	b := c.Browser
	d := engine.SessionOptions{Viewport: vp, IgnoreHTTPSErrors: b.IgnoreHTTPSErrors}
	if dev, ok := devices.Lookup(b.Device); ok {
		d.DeviceScaleFactor, d.IsMobile, d.HasTouch, d.UserAgent = dev.DeviceScaleFactor, dev.IsMobile, dev.HasTouch, dev.UserAgent
	}
	if b.Mobile {
		d.IsMobile, d.HasTouch = true, true
	}
	if b.UserAgent != "" {
		d.UserAgent = b.UserAgent
	}
	d.Proxy, d.ProxyBypass = b.ProxyServer, b.ProxyBypass
	d.InitScripts, _ = readInitScripts(b.InitScripts)
	d.Permissions = splitList(b.GrantPermissions)
	d.StorageState, _ = readStorageState(b.StorageState)
	d.BlockServiceWorkers = b.BlockServiceWorkers
	return d
}

// ToolOptions are the tools on offer: the opt-in groups, less the tools the
// security settings take away; and the server's name and version.
func (c Config) ToolOptions(log *slog.Logger) tools.Options {
	caps, _ := tools.ParseCaps(strings.Join(c.Capabilities, ","))
	var off []string
	if !c.Security.EnableScriptEvaluation {
		off = append(off, "evaluate")
	}
	if !c.Security.EnableFileUpload {
		off = append(off, "upload_file")
	}
	return tools.Options{
		Name: c.Name, Version: c.Version, Log: log,
		DisabledTools:      off,
		Caps:               caps,
		MaxScreenshotBytes: c.Security.MaxScreenshotSize,
		OutputDir:          c.ResolvedOutputDir(),
		AllowedPaths:       c.allowedPaths(),
		NoFileAccess:       !c.Security.EnableFileUpload,
		NoScriptEvaluation: !c.Security.EnableScriptEvaluation,
		OmitImages:         c.ImageResponses == "omit",
		OutputSchemas:      c.OutputSchemas,
		SnapshotMaxText:    snapshotMaxText(c.Snapshot.MaxTextLength),
		ActionResult:       c.ActionResult,
		ChangesCap:         c.ActionResultCap,
		Codegen:            codegenLanguage(c.Codegen),
		RecordingLimits:    engine.RecordingLimits{MaxBytes: int64(c.RecordingMaxSize) << 20, MaxDuration: time.Duration(c.RecordingMaxDuration) * time.Second},
		// Over HTTP the client's roots name its own machine's directories.
		ClientRoots: c.Transport == "stdio",
	}
}

// codegenLanguage is --codegen as tools.Options takes it: "" when unset,
// so that --caps testing can turn typescript on.
func codegenLanguage(s string) codegen.Language {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	l, _ := codegen.ParseLanguage(s)
	return l
}

// allowedPaths are the directories besides the output directory whose
// files tools may use: security.allowedPaths, and the download directory,
// whose files the server wrote for the agent too.
func (c Config) allowedPaths() []string {
	p := slices.Clone(c.Security.AllowedPaths)
	if c.Browser.DownloadPath != "" {
		p = append(p, c.Browser.DownloadPath)
	}
	return p
}

// ResolvedOutputDir is OutputDir, or its default when empty.
func (c Config) ResolvedOutputDir() string {
	if c.OutputDir != "" {
		return c.OutputDir
	}
	return filepath.Join(os.TempDir(), "browsermcp")
}

// HTTPOptions are where the HTTP transport listens and whom it lets in.
func (c Config) HTTPOptions() httpserve.Options {
	return httpserve.Options{Host: c.Host, Port: c.Port, APIKeys: c.APIKeys, AllowedHosts: c.AllowedHosts, MaxMessage: int64(c.Security.MaxMessageSize),
		WebSocket: c.Transport == "websocket"}
}

// LogOptions are where logs go and which. stdout means stderr over stdio,
// where stdout is the protocol's channel (LogNote).
func (c Config) LogOptions() logbridge.Options {
	return logbridge.Options{Level: c.Logging.Level, Format: c.Logging.Format, File: c.Logging.File,
		Stdout: c.Logging.Destination == "stdout" && c.Transport != "stdio"}
}

// LogNote is the line to print on stderr when the logs cannot go where
// logging.destination says: stdout over stdio. "" otherwise.
func (c Config) LogNote() string {
	if c.Logging.Destination == "stdout" && c.Transport == "stdio" {
		return "browsermcp: logging.destination is stdout, but over stdio stdout carries the protocol: logging to stderr"
	}
	return ""
}

// maxSnapshotText bounds --snapshot-max-text: a cap above it is no cap.
const maxSnapshotText = 1 << 20

// snapshotMaxText turns the setting (0: no cap) into tools.Options'
// SnapshotMaxText (0: the default, negative: no cap).
func snapshotMaxText(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
