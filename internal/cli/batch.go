package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxBatch bounds what batch reads from stdin.
const maxBatch = 16 << 20

// batchMain runs commands read from stdin, one a line (quoted as in a
// shell) or a JSON array (of command lines, or of argument arrays), in
// this one process over one connection to the daemon. --bail stops at the
// first command that fails. The status is the first failure's, else 0.
func batchMain(ctx context.Context, args []string, g globals, e env) int {
	bail := false
	for _, a := range args {
		switch a {
		case "--bail":
			bail = true
		default:
			fmt.Fprintf(e.stderr, "browsermcp: unknown batch option %q\nusage: browsermcp batch [--bail] < commands\n", a)
			return exitUsage
		}
	}
	in, err := io.ReadAll(io.LimitReader(e.stdin, maxBatch+1))
	if err != nil {
		fmt.Fprintln(e.stderr, "browsermcp: reading stdin:", err)
		return exitError
	}
	if len(in) > maxBatch {
		fmt.Fprintf(e.stderr, "browsermcp: batch reads at most %d bytes\n", maxBatch)
		return exitUsage
	}
	lines, err := batchLines(string(in))
	if err != nil {
		fmt.Fprintln(e.stderr, "browsermcp: batch:", err)
		return exitUsage
	}
	if len(lines) == 0 {
		fmt.Fprintln(e.stderr, "browsermcp: batch: no commands on stdin")
		return exitUsage
	}
	var s *conn
	defer func() {
		if s != nil {
			s.close()
		}
	}()
	status := exitOK
	for i, argv := range lines {
		code := batchOne(ctx, argv, g, e, &s)
		if code != exitOK {
			if status == exitOK {
				status = code
			}
			if bail {
				if i+1 < len(lines) {
					fmt.Fprintf(e.stderr, "browsermcp: batch stopped at command %d of %d (--bail)\n", i+1, len(lines))
				}
				break
			}
		}
	}
	return status
}

// batchOne runs one command of a batch, opening the connection at the
// first that needs it.
func batchOne(ctx context.Context, argv []string, g globals, e env, s **conn) int {
	lg, rest, err := parseGlobals(argv, func(k string) string {
		if k == EnvSession {
			return g.session
		}
		return ""
	})
	if err == nil && len(lg.serverArgs) > 0 {
		err = fmt.Errorf("server flags (%s) go on batch's own command line", strings.Join(lg.serverArgs, " "))
	}
	if err == nil && len(rest) == 0 {
		err = errors.New("an empty command")
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "browsermcp:", err)
		return exitUsage
	}
	lg.json = lg.json || g.json
	c, ok := lookup(rest[0])
	if !ok || rest[0] == "batch" || rest[0] == "skill" {
		fmt.Fprintf(e.stderr, "browsermcp: unknown command %q in batch\n", rest[0])
		if near := closest(rest[0]); near != "" && near != "batch" && near != "skill" {
			fmt.Fprintf(e.stderr, "Did you mean %q?\n", near)
		}
		return exitUsage
	}
	if c.local != nil {
		if *s != nil {
			(*s).close()
			*s = nil
		}
		lg.serverArgs, lg.idle = g.serverArgs, g.idle
		return c.local(ctx, rest[1:], lg, e)
	}
	inv, err := c.parse(rest[1:])
	if err != nil {
		fmt.Fprintln(e.stderr, "browsermcp:", err)
		fmt.Fprint(e.stderr, c.help())
		return exitUsage
	}
	if *s == nil {
		conn, code := open(ctx, g, e)
		if conn == nil {
			return code
		}
		*s = conn
	}
	(*s).session = lg.session
	return (*s).run(ctx, c, inv, lg.json)
}

// batchLines splits batch's input into commands.
func batchLines(in string) ([][]string, error) {
	t := strings.TrimSpace(in)
	if strings.HasPrefix(t, "[") {
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(t), &items); err != nil {
			return nil, fmt.Errorf("reading the JSON array: %w", err)
		}
		var out [][]string
		for i, it := range items {
			var line string
			if json.Unmarshal(it, &line) == nil {
				w, err := splitWords(line)
				if err != nil {
					return nil, fmt.Errorf("command %d: %w", i+1, err)
				}
				out = append(out, w)
				continue
			}
			var argv []string
			if err := json.Unmarshal(it, &argv); err != nil {
				return nil, fmt.Errorf("command %d is neither a command line nor an array of strings", i+1)
			}
			out = append(out, argv)
		}
		return out, nil
	}
	var out [][]string
	for n, line := range strings.Split(in, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		w, err := splitWords(l)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if len(w) > 0 && w[0] == "browsermcp" {
			w = w[1:]
		}
		out = append(out, w)
	}
	return out, nil
}

// splitWords splits a command line as a POSIX shell would, without
// expansions: 'single' and "double" quotes, and backslash escapes outside
// single quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated \" quote")
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
