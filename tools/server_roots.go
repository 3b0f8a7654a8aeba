package tools

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The MCP client's roots. Over stdio the server runs for one client, on
// that client's machine, and a client that offers roots (client capability
// roots) names the directories it works in, such as the project an agent
// is editing: file arguments may then name files there too, as in
// playwright-mcp, without an --allowed-paths flag. Over HTTP a client is
// remote and its roots name directories of its own machine, not the
// server's: they are ignored there, and only the configured directories
// count.
//
// The roots are asked for (roots/list) when a file argument falls outside
// the configured directories, in that call's time, and kept until the
// client says they changed (notifications/roots/list_changed). Only a
// client that made the initialize handshake (protocol versions up to
// 2025-11-25, as the official SDKs and hosts do) and declared the roots
// capability is asked: its notifications/initialized tells us its session.
// A client of the stateless protocol mcp-go also serves (server/discover)
// never sends that notification, takes no server-to-client requests, and
// so has no roots here.

// rootsTimeout bounds one roots/list, within the call that needs it.
const rootsTimeout = 10 * time.Second

// clientRoots holds the roots of the one stdio client.
type clientRoots struct {
	log *slog.Logger

	mu      sync.Mutex
	session server.ClientSession // the client's, from its initialized notification
	changes uint64               // list_changed notifications so far
	fetched bool                 // dirs answer roots/list as of fetchedAt
	at      uint64               // changes when dirs were asked for
	dirs    []string             // absolute, cleaned
}

// register makes s keep the roots of its client.
func (r *clientRoots) register(s *server.MCPServer) {
	s.AddNotificationHandler(string(mcp.MethodNotificationInitialized), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		r.bind(ctx)
	})
	s.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, func(ctx context.Context, _ mcp.JSONRPCNotification) {
		r.bind(ctx)
		r.mu.Lock()
		r.changes++
		r.mu.Unlock()
	})
}

// bind remembers the client session of ctx; a notification arrives on the
// read loop, so nothing here may wait for the client.
func (r *clientRoots) bind(ctx context.Context) {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		r.mu.Lock()
		r.session = cs
		r.mu.Unlock()
	}
}

// get returns the client's roots as directories, asking the client when
// they are not known or have changed. A client that offers no roots has
// none; one that fails to answer in time has none for this call.
func (r *clientRoots) get(ctx context.Context) []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	cs, gen := r.session, r.changes
	if r.fetched && r.at == gen {
		defer r.mu.Unlock()
		return r.dirs
	}
	r.mu.Unlock()
	if cs == nil {
		return nil
	}
	var dirs []string
	if offersRoots(cs) {
		lr, ok := cs.(server.SessionWithRoots)
		if !ok {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		defer cancel()
		res, err := lr.ListRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
		if err != nil {
			r.log.WarnContext(ctx, "the client did not list its roots", "err", err)
			return nil
		}
		dirs = rootDirs(r.log, res.Roots)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// A slower answer to an older question does not replace a newer one.
	if !r.fetched || gen >= r.at {
		r.fetched, r.at, r.dirs = true, gen, dirs
	}
	return dirs
}

// offersRoots reports whether the client declared the roots capability.
func offersRoots(cs server.ClientSession) bool {
	ci, ok := cs.(server.SessionWithClientInfo)
	return ok && ci.GetClientCapabilities().Roots != nil
}

// rootDirs turns the client's file:// roots into directories; a root of
// another scheme or host names nothing on this machine and is skipped.
func rootDirs(log *slog.Logger, roots []mcp.Root) []string {
	var dirs []string
	for _, root := range roots {
		p, err := fileURIPath(root.URI)
		if err != nil {
			log.Warn("skipping a client root", "uri", root.URI, "err", err)
			continue
		}
		dirs = append(dirs, p)
	}
	return dirs
}

// fileURIPath is the absolute path a file:// URI names.
func fileURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", err
	case u.Scheme != "file":
		return "", fmt.Errorf("not a file:// URI")
	case u.Host != "" && u.Host != "localhost":
		return "", fmt.Errorf("names host %q, not this machine", u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		// file:///C:/dir has the path /C:/dir.
		p = strings.TrimPrefix(p, "/")
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("not an absolute path")
	}
	return filepath.Clean(p), nil
}
