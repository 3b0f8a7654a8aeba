package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// httpBinary is the built binary serving MCP over HTTP on a free port of
// 127.0.0.1, with the two keys of httpservetest.
type httpBinary struct {
	url string
	cmd *exec.Cmd
	log *bytes.Buffer
}

// startHTTPBinary starts the binary with --port, the two keys and args,
// and waits until it answers. The test's end kills it, and logs its output
// if the test failed.
func startHTTPBinary(t *testing.T, args ...string) *httpBinary {
	t.Helper()
	bin := buildBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	s := &httpBinary{url: "http://127.0.0.1:" + port, log: &bytes.Buffer{}}
	s.cmd = exec.Command(bin, append([]string{"--port", port, "--api-key", httpservetest.KeyA, "--api-key", httpservetest.KeyB}, args...)...)
	s.cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	s.cmd.Stdout, s.cmd.Stderr = syncWriter{s.log}, syncWriter{s.log}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		if t.Failed() {
			stderrMu.Lock()
			t.Logf("server %s:\n%s", s.url, s.log.String())
			stderrMu.Unlock()
		}
	})
	testenv.Eventually(t, "the server to serve HTTP", func() (bool, error) {
		resp, err := http.Get(s.url + "/mcp")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return true, nil
	})
	return s
}

// client connects to the server with key.
func (s *httpBinary) client(t *testing.T, key string) *httpservetest.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(s.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return httpservetest.Connect(t, c)
}

// logged reports whether the server has logged s.
func (s *httpBinary) logged(what string) bool {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	return strings.Contains(s.log.String(), what)
}
