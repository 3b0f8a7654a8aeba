package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Files on the server. Every tool argument that names a file on the server
// (upload_file's files, save_state's and restore_state's path) is confined
// to the output directory and the directories of --allowed-paths: an agent,
// which may hold any API key, must not read or write the server's other
// files. A relative path is taken inside the output directory. Links and
// ".." are resolved before the check, so nothing escapes through them. With
// file access off (security.enableFileUpload false) no argument may name a
// file at all. Over stdio, the MCP client's roots are allowed too
// (server_roots.go).

// fileAccess is the rule for file arguments.
type fileAccess struct {
	enabled bool
	out     string   // the output directory, absolute
	roots   []string // out and the allowed paths, absolute and cleaned
	// client, when set (stdio), adds the client's roots.
	client *clientRoots
}

func newFileAccess(enabled bool, outputDir string, allowed []string) fileAccess {
	fa := fileAccess{enabled: enabled}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	fa.out = abs(outputDir)
	fa.roots = append(fa.roots, fa.out)
	for _, p := range allowed {
		if p != "" {
			fa.roots = append(fa.roots, abs(p))
		}
	}
	return fa
}

// describe names the directories allowed, for error messages.
func describe(roots []string) string {
	return strings.Join(roots, ", ")
}

// resolve checks one path argument and returns the real path to use.
// write is true for a file the server will create or overwrite: it need not
// exist, but its directory must. The output directory is created on first
// use.
func (fa fileAccess) resolve(ctx context.Context, field, p string, write bool) (string, error) {
	if !fa.enabled {
		return "", refusePath(field, field+": file access is disabled on this server (security.enableFileUpload is false); pass the data inline instead")
	}
	if p == "" {
		return "", refusePath(field, field+" must not be empty")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(fa.out, p)
	}
	p = filepath.Clean(p)
	// The client's roots are asked for only when the configured
	// directories do not hold the path.
	roots, asked := fa.roots, false
	withClient := func() bool {
		if fa.client == nil || asked {
			return false
		}
		asked = true
		extra := fa.client.get(ctx)
		roots = append(slices.Clip(fa.roots), extra...)
		return len(extra) > 0
	}
	// A path outside is refused before the file system is asked anything,
	// so that the answer tells nothing about files there.
	if !inside(roots, p, false) && (!withClient() || !inside(roots, p, false)) {
		return "", fa.outside(field, p, roots)
	}
	if write && strings.HasPrefix(p, fa.out+string(filepath.Separator)) {
		if err := os.MkdirAll(fa.out, 0o700); err != nil {
			return "", engine.Wrap(engine.BrowserError, err, "cannot create the output directory "+fa.out+": "+err.Error())
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) && write {
		// A new file: its directory must exist and be inside. A link to a
		// missing file is not new: writing it would follow the link.
		if _, lerr := os.Lstat(p); lerr == nil {
			return "", fa.outside(field, p, roots)
		}
		var dir string
		if dir, err = filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			real = filepath.Join(dir, filepath.Base(p))
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", refusePath(field, field+": "+p+" does not exist")
		}
		return "", engine.Wrap(engine.InvalidParameters, err, field+": "+err.Error()).With("field", field)
	}
	if !inside(roots, real, true) && (!withClient() || !inside(roots, real, true)) {
		return "", fa.outside(field, p, roots)
	}
	return real, nil
}

// inside reports whether p is one of the roots or below one, lexically;
// resolved compares with the roots' real paths only.
func inside(roots []string, p string, resolved bool) bool {
	for _, root := range roots {
		cands := []string{root}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			if resolved {
				cands = nil
			}
			cands = append(cands, r)
		}
		for _, r := range cands {
			if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

func (fa fileAccess) outside(field, p string, roots []string) *engine.Error {
	which := "the output directory, --output-dir, and --allowed-paths"
	if fa.client != nil {
		which = "the output directory, --output-dir, --allowed-paths, and the MCP client's roots"
	}
	return refusePath(field, field+": "+p+" is outside the directories this server lets tools use: "+describe(roots)+
		" ("+which+"); a relative path is taken inside the output directory").
		With("allowed", roots)
}

func refusePath(field, msg string) *engine.Error {
	return engine.Errorf(engine.InvalidParameters, "%s", msg).With("field", field)
}
