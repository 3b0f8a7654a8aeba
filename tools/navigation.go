package tools

import (
	"context"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// NavigateIn is the input of navigate.
type NavigateIn struct {
	SessionArg
	URL       string `json:"url" jsonschema:"Absolute URL to open"`
	WaitUntil string `json:"waitUntil,omitempty" jsonschema:"Page state to wait for (default load),enum=load,enum=domcontentloaded,enum=networkidle"`
	Timeout   int    `json:"timeout,omitempty" jsonschema:"Milliseconds (default 30000)"`
}

func (in NavigateIn) validate() error {
	if in.URL == "" {
		return invalid("url", "url must not be empty")
	}
	if err := oneOf("waitUntil", in.WaitUntil, "load", "domcontentloaded", "networkidle"); err != nil {
		return err
	}
	return nonNegative("timeout", in.Timeout)
}

// NavigateOut is the result of navigate.
type NavigateOut struct {
	Success bool   `json:"success"`
	Title   string `json:"title"`
	URL     string `json:"url" jsonschema:"Final URL after redirects"`
	Status  int    `json:"status" jsonschema:"HTTP status of the document; 0 if none"`
	// Dialog is a beforeunload dialog the old page opened; the navigation
	// waits for handle_dialog.
	Dialog *engine.Dialog `json:"dialog,omitempty" jsonschema:"beforeunload dialog holding the navigation; call handle_dialog"`
	SessionMeta
}

func navigate(d *Deps) Tool {
	return sessionTool(d, "navigate", "Open a URL in the session's page and wait for it to load.", pageAction,
		func(ctx context.Context, s engine.Session, in NavigateIn) (NavigateOut, error) {
			r, err := s.Navigate(ctx, engine.NavigateRequest{
				URL: in.URL, WaitUntil: engine.WaitUntil(in.WaitUntil), Timeout: ms(in.Timeout),
			})
			if err != nil {
				return NavigateOut{}, err
			}
			return NavigateOut{Success: true, Title: r.Title, URL: r.URL, Status: r.Status, Dialog: r.Dialog}, nil
		})
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
