package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"
)

// callTimeout bounds one tool call of a command; the tools bound their own
// work more tightly (navigations 30 s by default).
const callTimeout = 5 * time.Minute

// conn is a command's line to the daemon: one connection, on which each
// tool call is one request.
type conn struct {
	c       *client
	session string // the browser session's name
	env     env
	g       globals
	// answered is set once the daemon has answered a request of ours.
	answered bool
}

// open reaches the daemon, starting it when none runs. A nil conn comes
// with the exit status to return.
func open(ctx context.Context, g globals, e env) (*conn, int) {
	dir := runtimeDir(e.getenv)
	in, started, err := connect(ctx, dir, e.self, daemonArgs(g))
	if err != nil {
		fmt.Fprintln(e.stderr, "browsermcp:", err)
		return nil, exitError
	}
	if !started {
		if diff := mismatch(g.serverArgs, in.Args); len(diff) > 0 {
			fmt.Fprintf(e.stderr, "browsermcp: the daemon (pid %d) runs with %s; this command asks for %s.\nRun `browsermcp close --all` to stop it, then run the command again.\n",
				in.PID, orNone(in.Args), strings.Join(diff, " "))
			return nil, exitUsage
		}
		// The daemon's own idle timeout applies when it starts, as its
		// server flags do: one the running daemon does not have is said,
		// not dropped.
		if g.idleSet && g.idle.Milliseconds() != in.IdleTimeout {
			fmt.Fprintf(e.stderr, "browsermcp: the daemon (pid %d) runs with --idle-timeout %s; this command asks for %s.\nRun `browsermcp close --all` to stop it, then run the command again.\n",
				in.PID, time.Duration(in.IdleTimeout)*time.Millisecond, g.idle)
			return nil, exitUsage
		}
	}
	return &conn{c: newClient(files{dir}.socket(), in.Key), session: g.session, env: e, g: g}, exitOK
}

func orNone(args []string) string {
	if len(args) == 0 {
		return "no server flags"
	}
	return strings.Join(args, " ")
}

func (s *conn) close() { s.c.close() }

// errorBody is a tool error's JSON (tools.ErrorBody).
type errorBody struct {
	ErrorCode  string         `json:"errorCode"`
	Message    string         `json:"message"`
	Suggestion string         `json:"suggestion,omitempty"`
	Details    map[string]any `json:"details,omitempty"`
}

// toolError reads the error of an isError result; ok is false when its
// text is not our error JSON.
func toolError(r *toolResult) (errorBody, bool) {
	var b errorBody
	for _, c := range r.Content {
		if c.Type == "text" && json.Unmarshal([]byte(c.Text), &b) == nil && b.ErrorCode != "" {
			return b, true
		}
	}
	return b, false
}

// call runs tool on the command's session: a session tool gets the
// session's name as sessionId unless the command gave one, and a session
// not found (or expired) is created under that name, then the call made
// again.
func (s *conn) call(ctx context.Context, tool string, args map[string]any) (*toolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	d, ok := definition(tool)
	onSession := ok && d.Session
	if onSession {
		if _, given := args["sessionId"]; !given {
			args["sessionId"] = s.session
		}
	}
	r, err := s.c.call(ctx, tool, args)
	if err != nil && !s.answered && dropped(err) {
		// The daemon died as we reached it: its socket still took our
		// connection, then closed it unanswered. A new daemon replaces
		// it, and the call is made there: whatever the old one did went
		// with its browser.
		next, code := open(ctx, s.g, s.env)
		if next == nil {
			return nil, fmt.Errorf("%w (and no new daemon: exit %d)", err, code)
		}
		s.c.close()
		s.c = next.c
		r, err = s.c.call(ctx, tool, args)
	}
	if err == nil {
		s.answered = true
	}
	if err != nil || !r.IsError || !onSession || args["sessionId"] != s.session {
		return r, err
	}
	if b, ok := toolError(r); !ok || (b.ErrorCode != "SESSION_NOT_FOUND" && b.ErrorCode != "SESSION_EXPIRED") {
		return r, nil
	}
	cr, err := s.c.call(ctx, "create_session", map[string]any{"name": s.session})
	if err != nil {
		return nil, err
	}
	if cr.IsError {
		// Another command may have created it first: the call again
		// tells.
		if b, ok := toolError(cr); !ok || b.ErrorCode != "INVALID_PARAMETERS" {
			return cr, nil
		}
	}
	return s.c.call(ctx, tool, args)
}

// run makes the calls of one parsed command and prints their results;
// it returns the exit status.
func (s *conn) run(ctx context.Context, c *command, inv invocation, asJSON bool) int {
	r, err := s.call(ctx, inv.tool, inv.args)
	if err != nil {
		fmt.Fprintln(s.env.stderr, "browsermcp:", err)
		return exitError
	}
	if r.IsError {
		printError(s.env.stderr, r, asJSON)
		return exitError
	}
	if c.post != nil {
		if err := c.post(ctx, s, inv, r, asJSON); err != nil {
			fmt.Fprintln(s.env.stderr, "browsermcp:", err)
			return exitError
		}
		return exitOK
	}
	printResult(s.env.stdout, r, asJSON)
	return exitOK
}

// dropped reports a request the daemon's end closed unanswered, or that
// found no daemon listening any more.
func dropped(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
