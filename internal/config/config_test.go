package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
	"github.com/seed4af8c199/browsermcp/internal/httpserve"
)

func TestConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(file, []byte(`{"session": {"maxSessions": 5, "defaultTimeout": 1000}, "browser": {"headless": true},
		"security": {"allowedDomains": ["*.file.test"], "enableScriptEvaluation": false}, "logging": {"level": "warn"}}`), 0o600)
	cases := []struct {
		name string
		args []string
		env  map[string]string
		// want maps a dotted key of --print-config's JSON to its value.
		want map[string]any
	}{
		{"defaults", nil, nil, map[string]any{"session.maxSessions": 10.0, "transport": "stdio", "port": -1.0, "logging.level": "info", "security.enableScriptEvaluation": true}},
		{"file over defaults", []string{"--config", file}, nil, map[string]any{"session.maxSessions": 5.0, "session.defaultTimeout": 1000.0, "browser.headless": true, "logging.level": "warn"}},
		{"file from the environment", nil, map[string]string{"BROWSERMCP_CONFIG": file}, map[string]any{"session.maxSessions": 5.0}},
		{"environment over file", []string{"--config", file}, map[string]string{"BROWSERMCP_MAX_SESSIONS": "7", "BROWSERMCP_ALLOWED_DOMAINS": "a.test, b.test"},
			map[string]any{"session.maxSessions": 7.0, "session.defaultTimeout": 1000.0, "security.allowedDomains": []any{"a.test", "b.test"}}},
		{"flags over environment", []string{"--config", file, "--max-sessions", "9", "--allowed-domains", "c.test", "--allowed-domains", "d.test", "--headless=false"},
			map[string]string{"BROWSERMCP_MAX_SESSIONS": "7", "BROWSERMCP_ALLOWED_DOMAINS": "a.test"},
			map[string]any{"session.maxSessions": 9.0, "security.allowedDomains": []any{"c.test", "d.test"}, "browser.headless": false}},
		{"old flag names", []string{"--maxSessions", "3", "--sessionTimeout", "2000"}, nil, map[string]any{"session.maxSessions": 3.0, "session.defaultTimeout": 2000.0}},
		{"port implies http", []string{"--port", "0"}, nil, map[string]any{"transport": "http", "port": 0.0}},
		{"websocket listens like http", []string{"--transport", "websocket"}, nil, map[string]any{"transport": "websocket", "port": 0.0}},
		{"caps flags replace the environment", []string{"--caps", "network,pdf", "--caps", "console"}, map[string]string{"BROWSERMCP_CAPS": "state"},
			map[string]any{"capabilities": []any{"network,pdf", "console"}}},
		{"caps from the environment", nil, map[string]string{"BROWSERMCP_CAPS": "state, vision"}, map[string]any{"capabilities": []any{"state", "vision"}}},
		{"no caps", nil, nil, map[string]any{"capabilities": []any{}}},
		{"allowed paths", []string{"--allowed-paths", "/srv/a", "--allowed-paths", "/srv/b"}, map[string]string{"BROWSERMCP_ALLOWED_PATHS": "/env"},
			map[string]any{"security.allowedPaths": []any{"/srv/a", "/srv/b"}}},
		{"allowed paths from the environment", nil, map[string]string{"BROWSERMCP_ALLOWED_PATHS": "/x, /y"}, map[string]any{"security.allowedPaths": []any{"/x", "/y"}}},
		{"pool defaults", nil, nil, map[string]any{"pool.minBrowsers": 1.0, "pool.maxBrowsers": 1.0, "pool.idleTimeout": 300000.0}},
		{"pool from every layer", []string{"--pool-max-browsers", "4"}, map[string]string{"BROWSERMCP_POOL_MIN_BROWSERS": "2", "BROWSERMCP_POOL_IDLE_TIMEOUT": "1000"},
			map[string]any{"pool.minBrowsers": 2.0, "pool.maxBrowsers": 4.0, "pool.idleTimeout": 1000.0}},
		{"pool minimum raises the default maximum", []string{"--pool-min-browsers", "3"}, nil, map[string]any{"pool.minBrowsers": 3.0, "pool.maxBrowsers": 3.0}},
		{"api keys show as identities", []string{"--api-key", "secret-key-1"}, map[string]string{"BROWSERMCP_API_KEY": "env-key-123"},
			map[string]any{"apiKeys": []any{httpserve.KeyIdentity("secret-key-1")}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Load(append(tc.args, "--print-config"), func(k string) string { return tc.env[k] }, &out, "test")
			if !errors.Is(err, ErrPrinted) {
				t.Fatalf("err = %v", err)
			}
			var got map[string]any
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			for k, want := range tc.want {
				v := any(got)
				for _, part := range strings.Split(k, ".") {
					v = v.(map[string]any)[part]
				}
				if b1, _ := json.Marshal(v); string(b1) != mustJSON(want) {
					t.Errorf("%s = %s, want %s", k, b1, mustJSON(want))
				}
			}
			if strings.Contains(out.String(), "secret-key-1") {
				t.Error("--print-config shows an API key")
			}
		})
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestConfigErrorsListEveryProblem(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(file, []byte(`{"browser": {"typo": 1, "headless": "yes"}, "pool": {"minBrowsers": "two"}, "security": {"allowedDomains": ["a/b"]}}`), 0o600)
	env := map[string]string{"BROWSERMCP_MAX_SESSIONS": "many"}
	_, err := Load([]string{"--config", file, "--port", "70000", "--log-level", "loud"}, func(k string) string { return env[k] }, &bytes.Buffer{}, "test")
	if !errors.Is(err, ErrUsage) {
		t.Fatalf("err = %v, want a usage error", err)
	}
	for _, want := range []string{"browser.typo: unknown key", "pool.minBrowsers: want a whole number", "browser.headless: want true or false",
		"BROWSERMCP_MAX_SESSIONS", "flag -port", "flag -log-level", "security.allowedDomains", `"a/b" is not a host pattern`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestFileAccessReachesTools: the file settings reach the tools: the
// allowed paths, and enableFileUpload false turning off every file argument.
func TestFileAccessReachesTools(t *testing.T) {
	c, err := Load([]string{"--allowed-paths", "/srv/a", "--enable-file-upload=false"}, func(string) string { return "" }, &bytes.Buffer{}, "test")
	if err != nil {
		t.Fatal(err)
	}
	o := c.ToolOptions(nil)
	if len(o.AllowedPaths) != 1 || o.AllowedPaths[0] != "/srv/a" || !o.NoFileAccess {
		t.Fatalf("tool options: allowed %v, no file access %v", o.AllowedPaths, o.NoFileAccess)
	}
}

// TestSessionFlagsFromEveryLayer sets each setting of issue #16 by its
// config-file key and by its variable, and checks what the engine, the
// Manager and the tools are given.
func TestSessionFlagsFromEveryLayer(t *testing.T) {
	dir := t.TempDir()
	script, state := filepath.Join(dir, "init.js"), filepath.Join(dir, "state.json")
	os.WriteFile(script, []byte("window.x = 1"), 0o600)
	os.WriteFile(state, []byte(`{"cookies": [], "origins": []}`), 0o600)
	file := filepath.Join(dir, "c.json")
	os.WriteFile(file, []byte(`{"imageResponses": "omit", "browser": {"ignoreHttpsErrors": true, "userAgent": "file/1", "device": "Pixel 7",
		"isMobile": true, "proxyServer": "http://proxy.test:3128", "proxyBypass": "a.test", "initScripts": [`+strconvQuote(script)+`],
		"grantPermissions": ["geolocation"], "storageState": `+strconvQuote(state)+`, "blockServiceWorkers": true, "testIdAttribute": "data-qa"},
		"session": {"actionTimeout": 1000, "navigationTimeout": 2000, "idleTimeout": 3000}}`), 0o600)
	env := map[string]string{
		"BROWSERMCP_IGNORE_HTTPS_ERRORS": "true", "BROWSERMCP_USER_AGENT": "file/1", "BROWSERMCP_DEVICE": "Pixel 7",
		"BROWSERMCP_MOBILE": "true", "BROWSERMCP_PROXY_SERVER": "http://proxy.test:3128", "BROWSERMCP_PROXY_BYPASS": "a.test",
		"BROWSERMCP_INIT_SCRIPT": script, "BROWSERMCP_GRANT_PERMISSIONS": "geolocation", "BROWSERMCP_STORAGE_STATE": state,
		"BROWSERMCP_BLOCK_SERVICE_WORKERS": "true", "BROWSERMCP_TEST_ID_ATTRIBUTE": "data-qa", "BROWSERMCP_IMAGE_RESPONSES": "omit",
		"BROWSERMCP_TIMEOUT_ACTION": "1000", "BROWSERMCP_TIMEOUT_NAVIGATION": "2000", "BROWSERMCP_IDLE_TIMEOUT": "3000",
	}
	for _, layer := range []struct {
		name string
		args []string
		env  map[string]string
	}{{"file", []string{"--config", file}, nil}, {"environment", nil, env}} {
		t.Run(layer.name, func(t *testing.T) {
			cfg, err := Load(layer.args, func(k string) string { return layer.env[k] }, io.Discard, "test")
			if err != nil {
				t.Fatal(err)
			}
			mc := cfg.ManagerConfig()
			d := mc.Defaults
			if !d.IgnoreHTTPSErrors || d.UserAgent != "file/1" || d.DeviceScaleFactor != 2.625 || !d.IsMobile || !d.HasTouch ||
				d.Viewport.Width != 412 || d.Proxy != "http://proxy.test:3128" || d.ProxyBypass != "a.test" ||
				len(d.InitScripts) != 1 || d.InitScripts[0] != "window.x = 1" || len(d.Permissions) != 1 || d.StorageState == nil || !d.BlockServiceWorkers {
				t.Errorf("session defaults = %+v", d)
			}
			if mc.Timeouts.Action != time.Second || mc.Timeouts.Navigation != 2*time.Second || mc.IdleTimeout != 3*time.Second {
				t.Errorf("manager config = %+v", mc)
			}
			if cfg.Browser.TestIDAttribute != "data-qa" || !cfg.ToolOptions(nil).OmitImages {
				t.Errorf("test id attribute %q, image responses %q", cfg.Browser.TestIDAttribute, cfg.ImageResponses)
			}
			if got := cfg.EngineConfig().SessionFlags; len(got) != 6 {
				t.Errorf("session flags for the engine check = %v", got)
			}
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestPoolReachesEngine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(file, []byte(`{"pool": {"minBrowsers": 2, "maxBrowsers": 3, "idleTimeout": 5000}}`), 0o600)
	cfg, err := Load([]string{"--config", file}, func(string) string { return "" }, io.Discard, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.EngineConfig().Pool, (cdp.Pool{MinBrowsers: 2, MaxBrowsers: 3, IdleTimeout: 5 * time.Second}); got != want {
		t.Fatalf("engine pool %+v, want %+v", got, want)
	}
	// The seed's pool with the playwright engine is refused, naming the key.
	_, err = Load([]string{"--config", file, "--browser", "firefox"}, func(string) string { return "" }, io.Discard, "test")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "pool.maxBrowsers") || !strings.Contains(err.Error(), "--engine cdp") {
		t.Fatalf("a pool with --browser firefox: %v; want a usage error naming pool.maxBrowsers and --engine cdp", err)
	}
}

// TestSeedExample loads the seed's own example (seed 002 §7.2) as written:
// every key of §7.1 is accepted and reaches its typed field.
func TestSeedExample(t *testing.T) {
	cfg, err := Load([]string{"--config", filepath.Join("..", "..", "testdata", "seed-config.json")}, func(string) string { return "" }, io.Discard, "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "playwright-mcp-server" || cfg.Version != "1.0.0" || cfg.Transport != "stdio" {
		t.Errorf("name %q version %q transport %q", cfg.Name, cfg.Version, cfg.Transport)
	}
	if o := cfg.ToolOptions(nil); o.Name != "playwright-mcp-server" || o.Version != "1.0.0" {
		t.Errorf("serverInfo from the tool options: %q %q", o.Name, o.Version)
	}
	if got := cfg.EngineConfig().BrowserArgs; len(got) != 2 || got[0] != "--no-sandbox" || got[1] != "--disable-dev-shm-usage" {
		t.Errorf("browser args = %q", got)
	}
	if cfg.Pool != (PoolConfig{MinBrowsers: 2, MaxBrowsers: 10, IdleTimeout: 300000}) || cfg.Session.PersistentSessions {
		t.Errorf("pool %+v, persistent sessions %v", cfg.Pool, cfg.Session.PersistentSessions)
	}
	if cfg.Logging.Destination != "stdout" || cfg.LogOptions().Stdout || cfg.LogNote() == "" {
		t.Errorf("logging destination stdout over stdio: options %+v, note %q", cfg.LogOptions(), cfg.LogNote())
	}
	cfg.Transport = "http"
	if !cfg.LogOptions().Stdout || cfg.LogNote() != "" {
		t.Errorf("logging destination stdout over HTTP: options %+v, note %q", cfg.LogOptions(), cfg.LogNote())
	}
}

// TestNewKeys sets the keys of issue 15 by flag and by variable, and
// refuses their bad values, each named.
func TestNewKeys(t *testing.T) {
	dir := t.TempDir()
	dl, profile, log := filepath.Join(dir, "dl"), filepath.Join(dir, "profile"), filepath.Join(dir, "log.txt")
	cfg, err := Load([]string{"--download-path", dl, "--user-data-dir", profile, "--pool-idle-timeout", "0", "--persistent-sessions", "--server-name", "n", "--log-file", log}, func(string) string { return "" }, io.Discard, "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	mc := cfg.ManagerConfig()
	if mc.DownloadDir != dl || !mc.ProfileDefault || cfg.EngineConfig().UserDataDir != profile {
		t.Errorf("manager config %+v, engine user data dir %q", mc, cfg.EngineConfig().UserDataDir)
	}
	if cfg.Pool != (PoolConfig{MinBrowsers: 1, MaxBrowsers: 1}) || !cfg.Session.PersistentSessions || cfg.Name != "n" || cfg.Version != "9.9.9" {
		t.Errorf("pool %+v, persistent %v, name %q, version %q", cfg.Pool, cfg.Session.PersistentSessions, cfg.Name, cfg.Version)
	}
	// One browser holds a persistent profile: not a pool of several.
	if _, err := Load([]string{"--user-data-dir", profile, "--pool-max-browsers", "2"}, func(string) string { return "" }, io.Discard, "9.9.9"); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "pool of one browser") {
		t.Errorf("--user-data-dir with a pool of 2: %v, want a usage error", err)
	}
	if cfg.Logging.Destination != "file" || cfg.LogOptions().File != log {
		t.Errorf("logging = %+v", cfg.Logging)
	}
	if o := cfg.ToolOptions(nil); len(o.AllowedPaths) != 1 || o.AllowedPaths[0] != dl {
		t.Errorf("the download directory is not among the tools' allowed paths: %v", o.AllowedPaths)
	}
	cfg, err = Load([]string{"--log-destination", "file", "--output-dir", dir}, func(string) string { return "" }, io.Discard, "9.9.9")
	if err != nil || cfg.LogOptions().File != filepath.Join(dir, "browsermcp.log") {
		t.Errorf("logging.destination file without a file: %v, %+v", err, cfg.Logging)
	}
	env := map[string]string{"BROWSERMCP_USER_DATA_DIR": profile, "BROWSERMCP_POOL_IDLE_TIMEOUT": "4", "BROWSERMCP_LOG_DESTINATION": "stdout", "BROWSERMCP_SERVER_VERSION": "2.0"}
	cfg, err = Load(nil, func(k string) string { return env[k] }, io.Discard, "9.9.9")
	if err != nil || cfg.Browser.UserDataDir != profile || cfg.Pool.IdleTimeout != 4 || cfg.Logging.Destination != "stdout" || cfg.Version != "2.0" {
		t.Errorf("from the environment: %v, %+v", err, cfg)
	}

	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--pool-min-browsers", "3", "--pool-max-browsers", "2"}, "flag -pool-min-browsers"},
		{[]string{"--pool-max-browsers", "0"}, "flag -pool-max-browsers"},
		{[]string{"--pool-idle-timeout", "-1"}, "flag -pool-idle-timeout"},
		{[]string{"--log-destination", "syslog"}, "flag -log-destination"},
		{[]string{"--log-destination", "stdout", "--log-file", log}, "but logging.file (--log-file) is set"},
		{[]string{"--server-name", " "}, "flag -server-name"},
		{[]string{"--download-path", file}, "is a file, not a directory"},
		{[]string{"--user-data-dir", file}, "is a file, not a directory"},
		{[]string{"--user-data-dir", profile, "--engine", "playwright"}, "a persistent profile is cdp-only"},
		{[]string{"--user-data-dir", profile, "--browser", "firefox"}, "a persistent profile is cdp-only"},
		{[]string{"--user-data-dir", profile, "--cdp-endpoint", "http://127.0.0.1:9222"}, "--cdp-endpoint attaches"},
		{[]string{"--user-data-dir", profile, "--proxy-server", "http://proxy.test:3128"}, "no --proxy-server"},
		{[]string{"--user-data-dir", profile, "--allowed-domains", "a.test"}, "allowedDomains/blockedDomains"},
		{[]string{"--user-data-dir", filepath.Join(os.TempDir(), "browsermcp-runtime", "p")}, "whose directories the server removes"},
	} {
		_, err := Load(tc.args, func(string) string { return "" }, io.Discard, "test")
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// TestREADMEListsEveryKey fails when the README's table of configuration
// keys lacks a setting, its flag or its variable.
func TestREADMEListsEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, o := range options {
		// Other tables may have a row of the same name (the table of
		// limits has one for the name argument): the key's row is the one
		// that names its flag.
		row, flag := "\n| `"+o.key+"` | ", "`--"+o.flags[len(o.flags)-1]+"`"
		var line string
		for rest := readme; line == ""; {
			i := strings.Index(rest, row)
			if i < 0 {
				break
			}
			l, _, _ := strings.Cut(rest[i+1:], "\n")
			if strings.Contains(l, flag) {
				line = l
			}
			rest = rest[i+1:]
		}
		if line == "" {
			t.Errorf("README's configuration table lacks %s with %s", o.key, flag)
			continue
		}
		if !strings.Contains(line, "`"+o.env+"`") {
			t.Errorf("README's row of %s lacks %s: %s", o.key, o.env, line)
		}
	}
}

// TestSnapshotMaxTextReachesTools checks --snapshot-max-text from every
// layer: its default, a value from the file, the variable and the flag,
// 0 (no cap, which tools.Options spells negative) and a refused value.
func TestSnapshotMaxTextReachesTools(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(file, []byte(`{"snapshot": {"maxTextLength": 80}}`), 0o600)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "BROWSERMCP_SNAPSHOT_MAX_TEXT" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		args []string
		env  string
		want int
	}{
		{nil, "", 150},
		{[]string{"--config", file}, "", 80},
		{[]string{"--config", file}, "60", 60},
		{[]string{"--config", file, "--snapshot-max-text", "40"}, "60", 40},
		{[]string{"--snapshot-max-text", "0"}, "", -1},
	} {
		cfg, err := Load(c.args, env(c.env), io.Discard, "test")
		if err != nil {
			t.Fatalf("%v %q: %v", c.args, c.env, err)
		}
		if got := cfg.ToolOptions(nil).SnapshotMaxText; got != c.want {
			t.Errorf("%v %q: SnapshotMaxText %d, want %d", c.args, c.env, got, c.want)
		}
	}
	_, err := Load([]string{"--snapshot-max-text", "-5"}, env(""), io.Discard, "test")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "snapshot-max-text") {
		t.Fatalf("--snapshot-max-text -5: %v, want a usage error naming the flag", err)
	}
}

// TestCodegenReachesTools: --codegen, BROWSERMCP_CODEGEN and the codegen
// key reach the tools; unset it is empty, so that --caps testing turns
// typescript on, and an unknown language is a usage error naming it.
func TestCodegenReachesTools(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(file, []byte(`{"codegen": "python"}`), 0o600)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "BROWSERMCP_CODEGEN" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		args []string
		env  string
		want codegen.Language
	}{
		{nil, "", ""},
		{[]string{"--config", file}, "", codegen.Python},
		{[]string{"--config", file}, "none", codegen.None},
		{[]string{"--config", file, "--codegen", "typescript"}, "none", codegen.TypeScript},
	} {
		cfg, err := Load(c.args, env(c.env), io.Discard, "test")
		if err != nil {
			t.Fatalf("%v %q: %v", c.args, c.env, err)
		}
		if got := cfg.ToolOptions(nil).Codegen; got != c.want {
			t.Errorf("%v %q: Codegen %q, want %q", c.args, c.env, got, c.want)
		}
	}
	_, err := Load([]string{"--codegen", "java"}, env(""), io.Discard, "test")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "codegen") || !strings.Contains(err.Error(), "java") {
		t.Fatalf("--codegen java: %v, want a usage error naming the flag and the value", err)
	}
}
