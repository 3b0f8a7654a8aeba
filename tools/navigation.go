package tools

import (
	"context"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// NavigateIn is the input of navigate.
type NavigateIn struct {
	SessionArg
	URL       string `json:"url" size:"65536"`
	WaitUntil string `json:"waitUntil,omitempty" jsonschema:"Default load,enum=load,enum=domcontentloaded,enum=networkidle"`
	Timeout   int    `json:"timeout,omitempty" range:"0,300000"`
}

func (in NavigateIn) validate() error {
	if in.URL == "" {
		return invalid("url", "url must not be empty")
	}
	return oneOf("waitUntil", in.WaitUntil, "load", "domcontentloaded", "networkidle")
}

// NavigateOut is the result of navigate.
type NavigateOut struct {
	PageOut
	// Recovered says the tab's renderer had crashed and this navigation
	// ran in a new page of the session.
	Recovered string `json:"recovered,omitempty"`
}

// PageOut is the result of the tools that move through history.
type PageOut struct {
	Success bool   `json:"success"`
	Title   string `json:"title"`
	URL     string `json:"url" jsonschema:"Final URL after redirects"`
	Status  int    `json:"status" jsonschema:"HTTP status of the document; 0 if none"`
	// Dialog is a beforeunload dialog the old page opened; the navigation
	// waits for handle_dialog.
	Dialog *engine.Dialog `json:"dialog,omitempty" jsonschema:"beforeunload dialog holding the navigation; call handle_dialog"`
	SessionMeta
}

// HistoryOut is the result of go_back, go_forward and reload: the page,
// and what changed on it, or the new document's outline (changes.go).
type HistoryOut struct {
	PageOut
	Changes *ChangesOut `json:"changes,omitempty"`
}

func navigate(d *Deps) Tool {
	return sessionTool(d, "navigate", "Open a URL and wait for it to load.", pageAction,
		func(ctx context.Context, s engine.Session, in NavigateIn) (NavigateOut, error) {
			r, err := s.Navigate(ctx, engine.NavigateRequest{
				URL: in.URL, WaitUntil: engine.WaitUntil(in.WaitUntil), Timeout: ms(in.Timeout),
			})
			if err != nil {
				return NavigateOut{}, err
			}
			return NavigateOut{PageOut{Success: true, Title: r.Title, URL: r.URL, Status: r.Status, Dialog: r.Dialog}, r.Recovered}, nil
		})
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// HistoryIn is the input of go_back, go_forward and wait_for_load.
type HistoryIn struct {
	SessionArg
	Timeout int `json:"timeout,omitempty" range:"0,300000"`
}

func navOut(r engine.NavigateResult) HistoryOut {
	return HistoryOut{PageOut: PageOut{Success: true, Title: r.Title, URL: r.URL, Status: r.Status}}
}

func goBack(d *Deps) Tool {
	return sessionTool(d, "go_back", "Go back in history.", pageAction,
		func(ctx context.Context, s engine.Session, in HistoryIn) (HistoryOut, error) {
			r, err := s.History(ctx, -1, ms(in.Timeout))
			return navOut(r), err
		})
}

func goForward(d *Deps) Tool {
	return sessionTool(d, "go_forward", "Go forward in history.", pageAction,
		func(ctx context.Context, s engine.Session, in HistoryIn) (HistoryOut, error) {
			r, err := s.History(ctx, 1, ms(in.Timeout))
			return navOut(r), err
		})
}

// ReloadIn is the input of reload.
type ReloadIn struct {
	SessionArg
	IgnoreCache bool `json:"ignoreCache,omitempty"`
	Timeout     int  `json:"timeout,omitempty" range:"0,300000"`
}

func reload(d *Deps) Tool {
	return sessionTool(d, "reload", "Reload the page.", pageAction,
		func(ctx context.Context, s engine.Session, in ReloadIn) (HistoryOut, error) {
			r, err := s.Reload(ctx, in.IgnoreCache, ms(in.Timeout))
			return navOut(r), err
		})
}
