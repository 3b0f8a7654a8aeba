package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// GridVersion is the Selenium Grid the tests and `make grid` run: its
// standalone jar ships in the npm package @nightwatch/selenium-server.
const GridVersion = "4.20.0"

// GridJarPath is where `make gridjar` puts the Selenium server jar.
func GridJarPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", ".cache", "grid", "selenium-server-"+GridVersion+".jar")
}

var jarMu sync.Mutex

// GridJar returns the Selenium server jar, fetching it from npm as `make
// gridjar` does when it is missing (npm pack, no install scripts: the
// package's own would download from GitHub). It skips, or fails with
// BROWSERMCP_REQUIRE_BROWSER=1, when it cannot be had.
func GridJar(tb testing.TB) string {
	tb.Helper()
	jarMu.Lock()
	defer jarMu.Unlock()
	jar := GridJarPath()
	if _, err := os.Stat(jar); err == nil {
		return jar
	}
	if err := fetchJar(jar); err != nil {
		NoBrowser(tb, fmt.Errorf("the Selenium Grid jar is missing (make gridjar): %w", err))
	}
	return jar
}

func fetchJar(jar string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return err
	}
	dir := filepath.Dir(jar)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, "fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "@nightwatch/selenium-server@"+GridVersion)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm pack: %v: %s", err, out)
	}
	tgz := filepath.Join(tmp, "nightwatch-selenium-server-"+GridVersion+".tgz")
	name := "package/lib/" + filepath.Base(jar)
	if out, err := exec.CommandContext(ctx, "tar", "xzf", tgz, "-C", tmp, name).CombinedOutput(); err != nil {
		return fmt.Errorf("tar: %v: %s", err, out)
	}
	// Another test binary may be fetching it too: the rename is atomic.
	return os.Rename(filepath.Join(tmp, name), jar)
}

// Java returns the java binary, or skips (fails with
// BROWSERMCP_REQUIRE_BROWSER=1) when there is none.
func Java(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("java")
	if err != nil {
		NoBrowser(tb, fmt.Errorf("no java for Selenium Grid (apt-get install openjdk-17-jre-headless): %w", err))
	}
	return p
}

// Grid is a Selenium Grid a test started: one standalone server, or a hub
// and its nodes.
type Grid struct {
	URL string
	// Nodes are the hub's nodes (StartGridHub); none for a standalone.
	Nodes []*GridNode
	procs []*javaProc
	log   *bytes.Buffer
}

// GridNode is one node of a hub that a test started.
type GridNode struct {
	URL string
	p   *javaProc
}

// javaProc is one Grid server process, in a process group of its own with
// the drivers and browsers it starts.
type javaProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// gridTools checks for what a Grid needs: java, the jar and chromedriver.
func gridTools(tb testing.TB) (java, jar string) {
	tb.Helper()
	java, jar = Java(tb), GridJar(tb)
	if _, err := exec.LookPath("chromedriver"); err != nil {
		NoBrowser(tb, fmt.Errorf("no chromedriver for Selenium Grid (apt-get install chromium-driver): %w", err))
	}
	return java, jar
}

// start runs one Grid server (java -jar jar args...) and ends it, with its
// drivers and browsers, when the test ends.
func (g *Grid) start(tb testing.TB, java string, args ...string) *javaProc {
	tb.Helper()
	p := &javaProc{cmd: exec.Command(java, args...), exited: make(chan struct{})}
	// The server's chromedrivers and browsers are in its process group,
	// so that the cleanup (and Kill) ends them all.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Stdout, p.cmd.Stderr = &lockedWriter{b: g.log}, &lockedWriter{b: g.log}
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("starting Selenium Grid: %v", err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	g.procs = append(g.procs, p)
	tb.Cleanup(p.kill)
	return p
}

// kill ends the server with SIGKILL, and every process of its group.
func (p *javaProc) kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// newGrid is a Grid whose log the test prints when it fails.
func newGrid(tb testing.TB, port int) *Grid {
	g := &Grid{URL: "http://127.0.0.1:" + strconv.Itoa(port), log: &bytes.Buffer{}}
	// Registered before the servers' own cleanups, so it runs after them.
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("Selenium Grid log:\n%s", g.Log())
		}
	})
	return g
}

// StartGrid starts a Selenium Grid standalone on a free port of 127.0.0.1,
// with extra server flags (e.g. --max-sessions 1), waits until /status
// says it is ready, and stops it, with its drivers and browsers, when the
// test ends. It needs java, chromedriver on PATH and the jar (GridJar).
func StartGrid(tb testing.TB, extra ...string) *Grid {
	tb.Helper()
	java, jar := gridTools(tb)
	port := freePort(tb)
	g := newGrid(tb, port)
	g.start(tb, java, append([]string{"-jar", jar, "standalone", "--port", strconv.Itoa(port), "--host", "127.0.0.1",
		"--selenium-manager", "false"}, extra...)...)
	Eventually(tb, "Selenium Grid at "+g.URL+" to be ready", func() (bool, error) {
		g.checkAlive(tb)
		var st struct {
			Value struct {
				Ready bool `json:"ready"`
			} `json:"value"`
		}
		if err := getJSON(http.MethodGet, g.URL+"/status", nil, &st); err != nil {
			return false, err
		}
		return st.Value.Ready, errors.New("not ready")
	})
	return g
}

// StartGridHub starts a hub on 127.0.0.1 and nodes on it, each with slots
// browsers at most, even more than the machine has cores (one slot each:
// two sessions land on two nodes), as
// `make grid` does, but on free ports, event bus included; it waits until
// every node has registered. nodeExtra are more flags for each node.
func StartGridHub(tb testing.TB, nodes, slots int, nodeExtra ...string) *Grid {
	tb.Helper()
	java, jar := gridTools(tb)
	port, pub, sub := freePort(tb), freePort(tb), freePort(tb)
	g := newGrid(tb, port)
	g.start(tb, java, "-jar", jar, "hub", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--publish-events", fmt.Sprintf("tcp://127.0.0.1:%d", pub), "--subscribe-events", fmt.Sprintf("tcp://127.0.0.1:%d", sub))
	for range nodes {
		np := freePort(tb)
		args := append([]string{"-jar", jar, "node", "--host", "127.0.0.1", "--port", strconv.Itoa(np),
			"--hub", g.URL, "--publish-events", fmt.Sprintf("tcp://127.0.0.1:%d", pub),
			"--subscribe-events", fmt.Sprintf("tcp://127.0.0.1:%d", sub),
			"--selenium-manager", "false", "--max-sessions", strconv.Itoa(slots), "--override-max-sessions", "true"}, nodeExtra...)
		g.Nodes = append(g.Nodes, &GridNode{URL: "http://127.0.0.1:" + strconv.Itoa(np), p: g.start(tb, java, args...)})
	}
	Eventually(tb, fmt.Sprintf("the %d nodes of the hub at %s to be up", nodes, g.URL), func() (bool, error) {
		g.checkAlive(tb)
		list, err := g.nodes()
		if err != nil {
			return false, err
		}
		up := 0
		for _, n := range list {
			if n.Status == "UP" {
				up++
			}
		}
		return up == nodes, fmt.Errorf("%d of %d nodes up", up, nodes)
	})
	return g
}

// checkAlive fails the test when a server of the Grid has exited.
func (g *Grid) checkAlive(tb testing.TB) {
	tb.Helper()
	for _, p := range g.procs {
		select {
		case <-p.exited:
			tb.Fatalf("Selenium Grid exited at startup: %v\n%s", p.cmd.ProcessState, g.Log())
		default:
		}
	}
}

// gqlNode is a node as the Grid's GraphQL API lists it.
type gqlNode struct {
	URI      string `json:"uri"`
	Status   string `json:"status"`
	Sessions []struct {
		ID string `json:"id"`
	} `json:"sessions"`
}

func (g *Grid) nodes() ([]gqlNode, error) {
	var r struct {
		Data struct {
			NodesInfo struct {
				Nodes []gqlNode `json:"nodes"`
			} `json:"nodesInfo"`
		} `json:"data"`
	}
	q := map[string]string{"query": "{ nodesInfo { nodes { uri status sessions { id } } } }"}
	err := getJSON(http.MethodPost, g.URL+"/graphql", q, &r)
	return r.Data.NodesInfo.Nodes, err
}

// NodeOf returns the node that holds the Grid session id, as the Grid's
// GraphQL API says, or nil.
func (g *Grid) NodeOf(tb testing.TB, id string) *GridNode {
	tb.Helper()
	nodes, err := g.nodes()
	if err != nil {
		tb.Fatalf("Grid GraphQL: %v", err)
	}
	for _, n := range nodes {
		for _, s := range n.Sessions {
			if s.ID != id {
				continue
			}
			for _, gn := range g.Nodes {
				if strings.TrimSuffix(n.URI, "/") == gn.URL {
					return gn
				}
			}
			tb.Fatalf("Grid session %s is on node %s, which the test did not start", id, n.URI)
		}
	}
	return nil
}

// Kill kills the node as a machine that dies would: the node's server with
// SIGKILL, and with it every driver and browser it started.
func (n *GridNode) Kill() { n.p.kill() }

// Log is what the Grid printed so far.
func (g *Grid) Log() string {
	logMu.Lock()
	defer logMu.Unlock()
	return g.log.String()
}

// GridSession is one session the Grid's GraphQL API lists.
type GridSession struct {
	ID           string
	Capabilities map[string]any
}

// Sessions lists the Grid's sessions with their capabilities.
func (g *Grid) Sessions(tb testing.TB) []GridSession {
	tb.Helper()
	var r struct {
		Data struct {
			SessionsInfo struct {
				Sessions []struct {
					ID           string `json:"id"`
					Capabilities string `json:"capabilities"`
				} `json:"sessions"`
			} `json:"sessionsInfo"`
		} `json:"data"`
	}
	q := map[string]string{"query": "{ sessionsInfo { sessions { id capabilities } } }"}
	if err := getJSON(http.MethodPost, g.URL+"/graphql", q, &r); err != nil {
		tb.Fatalf("Grid GraphQL: %v", err)
	}
	var out []GridSession
	for _, s := range r.Data.SessionsInfo.Sessions {
		gs := GridSession{ID: s.ID}
		if err := json.Unmarshal([]byte(s.Capabilities), &gs.Capabilities); err != nil {
			tb.Fatalf("Grid session %s capabilities: %v", s.ID, err)
		}
		out = append(out, gs)
	}
	return out
}

// Session returns the Grid session labelled with our session id
// (bmcp:sessionId), or nil.
func (g *Grid) Session(tb testing.TB, ours string) *GridSession {
	tb.Helper()
	for _, s := range g.Sessions(tb) {
		if s.Capabilities["bmcp:sessionId"] == ours {
			return &s
		}
	}
	return nil
}

// KillBrowser kills the browser of a Grid session, as a crash would end
// it: the processes of its profile (the capability chrome.userDataDir) that
// are not a browser's helpers (--type=...).
func (g *Grid) KillBrowser(tb testing.TB, s GridSession) {
	tb.Helper()
	killed := 0
	for _, pid := range browserPIDs(tb, s) {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		tb.Fatalf("could not kill the browser of Grid session %s", s.ID)
	}
}

// BrowserPID is the browser process of a Grid session on this machine.
func (g *Grid) BrowserPID(tb testing.TB, s GridSession) int {
	tb.Helper()
	return browserPIDs(tb, s)[0]
}

// browserPIDs are the processes of s's profile (the capability
// chrome.userDataDir) that are not a browser's helpers (--type=...); at
// least one, or the test fails.
func browserPIDs(tb testing.TB, s GridSession) []int {
	tb.Helper()
	chrome, _ := s.Capabilities["chrome"].(map[string]any)
	dir, _ := chrome["userDataDir"].(string)
	if dir == "" {
		tb.Fatalf("Grid session %s has no chrome.userDataDir: %v", s.ID, s.Capabilities)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("--user-data-dir="+dir+"\x00")) || bytes.Contains(b, []byte("--type=")) {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(p, "/")[2])
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		tb.Fatalf("no browser process with --user-data-dir=%s", dir)
	}
	return pids
}

func getJSON(method, url string, body, out any) error {
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var logMu sync.Mutex

type lockedWriter struct{ b *bytes.Buffer }

func (w *lockedWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return w.b.Write(p)
}
