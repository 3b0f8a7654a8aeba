package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestRestoredProfileSessionIsTheProfiles: with --user-data-dir and
// --persistent-sessions over HTTP, the default session restored on the
// persistent profile holds it as a new one would: another API key's
// default session is not put in the same browser context (it would read
// the first key's cookies).
func TestRestoredProfileSessionIsTheProfiles(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	bin := buildBinary(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile")
	args := []string{"--headless", "--api-key", httpservetest.KeyA, "--api-key", httpservetest.KeyB,
		"--persistent-sessions", "--state-dir", filepath.Join(dir, "state"), "--user-data-dir", profile}
	start := func() (*exec.Cmd, string) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		log := &bytes.Buffer{}
		cmd := exec.Command(bin, append([]string{"--port", port}, args...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		cmd.Stdout, cmd.Stderr = syncWriter{log}, syncWriter{log}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			// The browser dies with the server; the profile goes after it.
			waitGone(t, "--user-data-dir="+profile, "the server was killed")
			if t.Failed() {
				stderrMu.Lock()
				t.Logf("server:\n%s", log.String())
				stderrMu.Unlock()
			}
		})
		url := "http://127.0.0.1:" + port
		testenv.Eventually(t, "the server to serve HTTP", func() (bool, error) {
			resp, err := http.Get(url + "/mcp")
			if err != nil {
				return false, err
			}
			resp.Body.Close()
			return true, nil
		})
		return cmd, url
	}
	connect := func(url, key string) *httpservetest.Client {
		c, err := client.NewStreamableHttpClient(url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
		if err != nil {
			t.Fatal(err)
		}
		return httpservetest.Connect(t, c)
	}

	cmd, url := start()
	connect(url, httpservetest.KeyA).OK("navigate", map[string]any{"url": site.URL + "/login?user=ada"})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waitGone(t, "--user-data-dir="+profile, "SIGTERM")

	_, url = start()
	a, b := connect(url, httpservetest.KeyA), connect(url, httpservetest.KeyB)
	if got := a.OK("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "s-ada") {
		t.Fatalf("key A's restored default session: %q", got)
	}
	// Key B does not see key A's restored session.
	if got := b.SessionIDs(); len(got) != 0 {
		t.Fatalf("key B sees %v after the restart", got)
	}
	res, isErr := b.Call("navigate", map[string]any{"url": site.URL + "/members"})
	if title, _ := res["title"].(string); !isErr && !strings.HasPrefix(title, "anonymous") {
		t.Fatalf("key B's default session reads key A's login on the profile: %v", res)
	}
}
