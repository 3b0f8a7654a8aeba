package main

import (
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestNpx packs the npm packages as make npm does (npm/build.mjs; here for
// this machine's platform only, from the binary the tests built) and runs
// the main package's tarball as an MCP client would, with npx: --version,
// then a stdio MCP session. npm resolves the platform package, an
// optionalDependency, from a registry of the test's own on 127.0.0.1 that
// holds only the packed tarballs, as it would from npmjs.org once they are
// published: npm picks the package by its os and cpu fields and no other
// registry is asked (the test runs offline).
func TestNpx(t *testing.T) {
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	// The platform in Node's names, as the shim looks it up.
	nodeOS, cpu := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[runtime.GOOS], map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if nodeOS == "" || cpu == "" {
		t.Skipf("browsermcp is not packaged for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	platform := nodeOS + "-" + cpu
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	tmp := t.TempDir()
	out := filepath.Join(tmp, "dist")
	build := exec.CommandContext(ctx, "node", "npm/build.mjs", "--out", out, "--version", version, "--platforms", platform, "--binary", bin)
	// Packing needs no registry, and gets a cache of its own, so that the
	// run below downloads the platform tarball as a user's npm would.
	packDir := filepath.Join(tmp, "pack")
	os.Mkdir(packDir, 0o755)
	build.Env = npmEnv(packDir, "http://127.0.0.1:9/")
	// Past the deadline, children that hold the pipes open do not hold
	// the test too.
	build.WaitDelay = 10 * time.Second
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("npm/build.mjs: %v\n%s", err, b)
	}
	main := "browsermcp-" + version + ".tgz"
	plat := "browsermcp-" + platform + "-" + version + ".tgz"
	for _, f := range []string{main, plat} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("npm pack made no %s: %v", f, err)
		}
	}

	reg := startRegistry(t, out, map[string]string{"@browsermcp/" + platform: plat})
	env := npmEnv(tmp, reg.URL+"/")

	npx := exec.CommandContext(ctx, "npx", "--yes", "./"+main, "--version")
	npx.Dir, npx.Env, npx.WaitDelay = out, env, 10*time.Second
	b, err := npx.CombinedOutput()
	if err != nil {
		t.Fatalf("npx --yes ./%s --version: %v\n%s", main, err, b)
	}
	if got := strings.TrimSpace(string(b)); !strings.HasSuffix(got, "browsermcp "+version) {
		t.Fatalf("npx --version printed %q, want browsermcp %s", got, version)
	}
	if !reg.served("@browsermcp/"+platform) || !reg.served(plat) {
		t.Fatalf("npm did not fetch @browsermcp/%s and its tarball from the registry; it asked for %v", platform, reg.requests())
	}

	// A stdio MCP session through npx, as an MCP client's config runs it.
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	c, err := client.NewStdioMCPClientWithOptions("npx", append(env, "TMPDIR="+tmp), []string{"--yes", "./" + main, "--headless"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Dir, cmd.Env, cmd.WaitDelay = out, env, 10*time.Second
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mcp.InitializeRequest{})
	if err != nil {
		t.Fatalf("initialize through npx: %v", err)
	}
	if init.ServerInfo.Name != "browsermcp" || init.ServerInfo.Version != version {
		t.Fatalf("serverInfo %+v", init.ServerInfo)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(","+strings.Join(names, ",")+",", ",navigate,") {
		t.Fatalf("tools/list through npx: %v", names)
	}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		var m map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &m)
		return m
	}
	id := call("create_session", nil)["sessionId"].(string)
	if got := call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"}); got["title"] != "Welcome" {
		t.Fatalf("navigate through npx: %v", got)
	}
}

// npmEnv runs npm with a cache and user config of its own under dir and
// with registry as its only registry, quietly.
func npmEnv(dir, registry string) []string {
	os.WriteFile(filepath.Join(dir, "npmrc"), nil, 0o644)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToLower(kv), "npm_config_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"npm_config_registry="+registry,
		"npm_config_cache="+filepath.Join(dir, "npm-cache"),
		"npm_config_userconfig="+filepath.Join(dir, "npmrc"),
		"npm_config_update_notifier=false",
		"npm_config_audit=false",
		"npm_config_fund=false",
		"npm_config_fetch_retries=0",
		"npm_config_loglevel=error",
	)
}

// registry serves packuments and tarballs of some packages, as npmjs.org
// does, and 404 for every other name.
type registry struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
	hits map[string]bool
}

// served reports whether the registry served the packument of a package
// name, or the tarball of a file name.
func (r *registry) served(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[name]
}

func (r *registry) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// startRegistry serves each package of pkgs (name -> tarball in dir),
// reading its manifest from dir/pkgs/<name without scope>/package.json.
func startRegistry(t *testing.T, dir string, pkgs map[string]string) *registry {
	t.Helper()
	r := &registry{hits: map[string]bool{}}
	packuments := map[string]map[string]any{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.URL.EscapedPath())
		r.mu.Unlock()
		if file, ok := strings.CutPrefix(req.URL.Path, "/-/tarballs/"); ok {
			for _, f := range pkgs {
				if f == file {
					r.mu.Lock()
					r.hits[file] = true
					r.mu.Unlock()
					http.ServeFile(w, req, filepath.Join(dir, f))
					return
				}
			}
			http.NotFound(w, req)
			return
		}
		name := strings.TrimPrefix(req.URL.Path, "/") // %2f is decoded in Path
		p, ok := packuments[name]
		if !ok {
			http.NotFound(w, req)
			return
		}
		r.mu.Lock()
		r.hits[name] = true
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p)
	}))
	t.Cleanup(r.Close)
	for name, file := range pkgs {
		b, err := os.ReadFile(filepath.Join(dir, "pkgs", name[strings.Index(name, "/")+1:], "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		tgz, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		s512, s1 := sha512.Sum512(tgz), sha1.Sum(tgz)
		m["dist"] = map[string]any{
			"tarball":   r.URL + "/-/tarballs/" + file,
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
			"shasum":    hex.EncodeToString(s1[:]),
		}
		v := m["version"].(string)
		packuments[name] = map[string]any{"name": name, "dist-tags": map[string]string{"latest": v}, "versions": map[string]any{v: m}}
	}
	return r
}
