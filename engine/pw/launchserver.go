package pw

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/rundir"
)

//go:embed launch_server.js
var launchServerJS string

// launchServer is a Node.js process that launches a browser through one of
// Playwright's browser types and serves it over Playwright's WebSocket
// protocol. It exists because playwright-go exposes only the chromium,
// firefox and webkit browser types, and stock Firefox needs _bidiFirefox.
type launchServer struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	exited   chan struct{}
	endpoint string
	// tmp is the server's TMPDIR under rundir, where Playwright puts the
	// browser's profile; removed once the server exited. A killed
	// browsermcp leaves it to the next one's sweep.
	tmp string
}

// startLaunchServer starts the server and waits for its endpoint.
func startLaunchServer(ctx context.Context, drv Driver, browserType string, opts map[string]any, log *slog.Logger) (*launchServer, error) {
	o, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(drv.Node, "-e", launchServerJS, filepath.Join(drv.Dir, "package"), browserType, string(o))
	tmp, err := rundir.MkdirTemp(strings.TrimPrefix(browserType, "_"))
	if err == nil {
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	} else {
		log.Warn("no runtime directory; the browser's profile goes where Playwright puts it", "err", err)
	}
	stderr := logWriter(log, browserType)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		if tmp != "" {
			_ = os.RemoveAll(tmp)
		}
		return nil, fmt.Errorf("starting the launch server: %w", err)
	}
	s := &launchServer{cmd: cmd, stdin: stdin, exited: make(chan struct{}), tmp: tmp}
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		// Keep draining so that the server never blocks on a full pipe.
		_, _ = io.Copy(io.Discard, r)
	}()
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case l := <-line:
		if strings.HasPrefix(l, "ws://") {
			s.endpoint = l
			return s, nil
		}
		s.stop(0)
		return nil, fmt.Errorf("the browser did not start: %s", strings.TrimSpace(stderr.Tail()))
	case <-ctx.Done():
		s.stop(0)
		return nil, fmt.Errorf("the browser did not start within the launch timeout: %s", strings.TrimSpace(stderr.Tail()))
	}
}

// stop asks the server to close the browser by closing its stdin, and kills
// it when it has not exited after timeout.
func (s *launchServer) stop(timeout time.Duration) {
	_ = s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	if s.tmp != "" {
		_ = rundir.RemoveAll(s.tmp)
	}
}
