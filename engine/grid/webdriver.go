package grid

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// The few WebDriver commands the engine sends to the Grid: New Session,
// Delete Session, /status, and the script that keeps a session alive
// (heartbeat, shared.go).
// Every one is bounded by its context.

// callTimeout bounds each WebDriver command but New Session, which waits in
// the Grid's queue for as long as the queue timeout allows.
const callTimeout = 10 * time.Second

// abandonLimit bounds a New Session request create_session gave up on (see
// newGridSession); the Grid's own --session-request-timeout (300 s by
// default) normally ends it sooner.
const abandonLimit = 10 * time.Minute

// wdError is a WebDriver error answer: {"value": {"error", "message"}}.
type wdError struct {
	Status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *wdError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("%s: %s", e.Code, firstLine(e.Message))
}

// firstLine keeps an error message to its first line: Grid appends build
// and host information, and Java stack traces, to its messages.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// send makes one JSON request to the Grid and reads at most limit bytes of
// its answer, whatever its status.
func (e *Engine) send(ctx context.Context, method, path string, body any, limit int64) (status int, raw []byte, err error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		// Grid 4 refuses a New Session without the charset.
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp.StatusCode, raw, err
}

// do sends one WebDriver command and decodes the answer's value into out
// (when not nil). A non-2xx answer is a *wdError.
func (e *Engine) do(ctx context.Context, method, path string, body, out any) error {
	status, raw, err := e.send(ctx, method, path, body, 4<<20)
	if err != nil {
		return err
	}
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(raw, &env)
	if status/100 != 2 {
		we := &wdError{Status: status}
		_ = json.Unmarshal(env.Value, we)
		if we.Code == "" && we.Message == "" {
			we.Message = firstLine(string(raw))
		}
		return we
	}
	if out != nil {
		if err := json.Unmarshal(env.Value, out); err != nil {
			return fmt.Errorf("%s %s answered %.200q: %w", method, path, raw, err)
		}
	}
	return nil
}

// newSessionReply is the part of New Session's answer the engine reads.
type newSessionReply struct {
	SessionID    string `json:"sessionId"`
	Capabilities struct {
		CDP string `json:"se:cdp"`
	} `json:"capabilities"`
}

// newGridSession asks the Grid for a browser. It waits in the Grid's queue
// until a slot frees, up to the queue timeout; a full Grid then answers
// MAX_SESSIONS_REACHED, retryable.
//
// A request the Grid has queued stays queued when its client goes away,
// and the Grid later starts a browser for nobody. So when the queue timeout
// (or the caller) gives up, the request is not cancelled: it goes on in the
// background, for at most abandonLimit, and the session it ends in, if
// any, is deleted at once.
func (e *Engine) newGridSession(ctx context.Context, caps map[string]any) (newSessionReply, error) {
	type answer struct {
		r   newSessionReply
		err error
	}
	done := make(chan answer, 1)
	bg, cancelBg := context.WithTimeout(context.WithoutCancel(ctx), abandonLimit)
	go func() {
		var a answer
		a.err = e.do(bg, http.MethodPost, "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}}, &a.r)
		done <- a
	}()
	abandon := func() {
		go func() {
			defer cancelBg()
			if a := <-done; a.err == nil && a.r.SessionID != "" {
				e.log.Info("deleting a Grid session whose create_session gave up waiting", "gridSession", a.r.SessionID)
				e.deleteGridSession(bg, a.r.SessionID)
			}
		}()
	}
	queue := time.NewTimer(e.cfg.QueueTimeout)
	defer queue.Stop()
	var r newSessionReply
	var err error
	select {
	case a := <-done:
		cancelBg()
		r, err = a.r, a.err
	case <-queue.C:
		abandon()
		return r, e.full(context.DeadlineExceeded, fmt.Sprintf("no browser became free within %s", e.cfg.QueueTimeout))
	case <-ctx.Done():
		abandon()
		return r, engine.Wrap(engine.BrowserError, ctx.Err(), "waiting for a browser from the Grid: "+ctx.Err().Error())
	}
	switch {
	case err == nil && (r.SessionID == "" || r.Capabilities.CDP == ""):
		if r.SessionID != "" {
			e.deleteGridSession(context.WithoutCancel(ctx), r.SessionID)
		}
		return r, engine.Errorf(engine.Unsupported, "the Grid at %s gave a session without se:cdp; its nodes must run Chromium or Chrome", e.base).
			Suggest("Run Chrome or Chromium nodes (Selenium Grid 4 or later); browsermcp drives them over CDP.")
	case err == nil:
		return r, nil
	}
	var we *wdError
	if errors.As(err, &we) {
		if we.Code == "session not created" && strings.Contains(strings.ToLower(we.Message), "timed out") {
			// The Grid's own --session-request-timeout, shorter than ours.
			return r, e.full(err, "the Grid's queue timed out the request")
		}
		return r, engine.Wrap(engine.BrowserError, err, fmt.Sprintf("the Grid at %s did not create a browser: %v", e.base, we)).
			With("gridError", we.Code)
	}
	return r, engine.Wrap(engine.BrowserError, err, fmt.Sprintf("the Grid at %s does not answer: %v", e.base, err))
}

// full is the answer of a create_session that waited in the Grid's queue in
// vain.
func (e *Engine) full(err error, why string) *engine.Error {
	return engine.Wrap(engine.MaxSessionsReached, err, fmt.Sprintf("the Grid at %s is full: %s", e.base, why)).
		With("reason", "grid_full").With("grid", e.base).With("queueTimeoutMs", e.cfg.QueueTimeout.Milliseconds()).
		Suggest("Every browser of the Grid is in use. Retry later, close a session you no longer need, or add Grid nodes.")
}

// deleteGridSession ends the Grid's session, which closes its browser. It
// logs rather than returns a failure: the session is gone for us either
// way, and the Grid's own session timeout ends what is left.
func (e *Engine) deleteGridSession(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := e.do(ctx, http.MethodDelete, "/session/"+id, nil, nil); err != nil {
		var we *wdError
		if errors.As(err, &we) && we.Status == http.StatusNotFound {
			return // the Grid ended it already (its node died, or it timed out)
		}
		e.log.Warn("deleting the Grid session", "gridSession", id, "err", err)
	}
}

// Status is the part of the Grid's /status the engine reads.
type Status struct {
	Ready   bool   `json:"ready"`
	Message string `json:"message"`
	Nodes   []struct {
		Availability string `json:"availability"`
		MaxSessions  int    `json:"maxSessions"`
	} `json:"nodes"`
}

// Status asks the Grid whether it is ready.
func (e *Engine) Status(ctx context.Context) (Status, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var st Status
	err := e.do(ctx, http.MethodGet, "/status", nil, &st)
	return st, err
}
