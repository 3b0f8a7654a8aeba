package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// proc is one server under test: a stdio child in a process group of its
// own, with its own temporary directory as HOME, TMPDIR and working
// directory, so that whatever it writes (playwright-mcp's snapshot files)
// lands where the agent can read it and goes away with it.
type proc struct {
	cmd    *exec.Cmd
	tmp    string
	stderr *tail
	mcp    *client.Client
	// pidFiles is a glob, relative to tmp, of files that name daemons the
	// server detaches into sessions of their own (agent-browser).
	pidFiles string
}

// tail keeps the end of a child's stderr for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf) - 8<<10; n > 0 {
		t.buf = t.buf[n:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// start launches l and completes the MCP handshake.
func start(ctx context.Context, l launch, timeout time.Duration) (*proc, error) {
	tmp, err := os.MkdirTemp("", "bench-harness-")
	if err != nil {
		return nil, err
	}
	p := &proc{tmp: tmp, stderr: &tail{}, pidFiles: l.pidFiles}
	env := make([]string, len(l.env))
	for i, e := range l.env {
		env[i] = strings.ReplaceAll(e, "{tmp}", tmp)
	}
	newCmd := func(ctx context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
		cmd := exec.Command(command, args...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
		cmd.Env = append(cmd.Env, env...)
		cmd.Dir = tmp
		cmd.Stderr = p.stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		p.cmd = cmd
		return cmd, nil
	}
	t := transport.NewStdioWithOptions(l.bin, nil, l.args, transport.WithCommandFunc(newCmd))
	if err := t.Start(ctx); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start %s: %w", l.bin, err)
	}
	p.mcp = client.NewClient(t)
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: "browsermcp-bench", Version: "0.1"}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := p.mcp.Initialize(cctx, req); err != nil {
		p.stop()
		return nil, fmt.Errorf("initialize: %w; stderr: %s", err, last(p.stderr.String(), 800))
	}
	return p, nil
}

// toolsJSON is what tools/list costs an agent: the JSON of every tool. It
// also answers the tools' names.
func (p *proc) toolsJSON(ctx context.Context, timeout time.Duration) (string, []string, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := p.mcp.ListTools(cctx, mcp.ListToolsRequest{})
	if err != nil {
		return "", nil, err
	}
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	b, err := json.Marshal(r.Tools)
	return string(b), names, err
}

// result is what one tool call answered, as an agent reads it.
type result struct {
	text    string
	isError bool
	images  int // decoded bytes of image content
	dur     time.Duration
}

// call invokes a tool and keeps the text of its content: what an agent
// reads. Images would be paid for too; no task takes a screenshot.
func (p *proc) call(ctx context.Context, timeout time.Duration, tool string, args map[string]any) (result, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	t0 := time.Now()
	res, err := p.mcp.CallTool(cctx, req)
	d := time.Since(t0)
	if err != nil {
		return result{dur: d}, fmt.Errorf("%s: %w", tool, err)
	}
	r := result{isError: res.IsError, dur: d}
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			sb.WriteString(t.Text)
			sb.WriteString("\n")
		}
		if im, ok := mcp.AsImageContent(c); ok {
			r.images += base64.StdEncoding.DecodedLen(len(im.Data))
		}
	}
	r.text = sb.String()
	return r, nil
}

// stop closes stdin, then ends the process group and any daemon the
// server left in a session of its own, by PID, and removes its directory.
func (p *proc) stop() {
	if p.mcp != nil {
		done := make(chan struct{})
		go func() { p.mcp.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
	daemons := p.daemons()
	if p.cmd != nil && p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	for _, d := range daemons {
		// Its group, where it leads one (its browser with it), and itself.
		_ = syscall.Kill(-d, syscall.SIGKILL)
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
	// Chromium's helpers exit once their browser is gone; give them a moment
	// so that the directory they write into can be removed.
	time.Sleep(200 * time.Millisecond)
	os.RemoveAll(p.tmp)
}

// daemons lists the process groups of the daemons named in the server's
// PID files, each only while that process's environment holds this
// server's TMPDIR, so that a stale file or a recycled PID never names a
// process of someone else. A daemon that called setsid leads its group.
func (p *proc) daemons() []int {
	if p.pidFiles == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(p.tmp, p.pidFiles))
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 1 {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00TMPDIR="+p.tmp+"\x00")) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func last(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
