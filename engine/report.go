package engine

import (
	"context"
)

// An action's result tells what the action caused beyond its page, so that
// the agent need not go looking: the tabs it opened, the files it
// downloaded, and the console errors the page logged. Every Session reports
// them as a Reporter (an engine that has nothing to report embeds
// NothingToReport); Bound asks it around every action, under the action's
// deadline.

// NewTab is a tab an action opened: a window.open popup or a target=_blank
// link.
type NewTab struct {
	// Index is the tab's index for the tabs tool.
	Index int    `json:"index"`
	URL   string `json:"url"`
}

// The states of a Download.
const (
	DownloadCompleted  = "completed"
	DownloadCanceled   = "canceled"
	DownloadInProgress = "in_progress"
)

// Download is a file an action downloaded into the session's download
// directory.
type Download struct {
	// SuggestedName is the name the site gave the file (Content-Disposition
	// or the download attribute).
	SuggestedName string `json:"suggestedName"`
	// Path is where the file was saved; empty unless State is completed.
	Path  string `json:"path,omitempty"`
	Bytes int64  `json:"bytes"`
	// State is completed, canceled (Error says why) or in_progress when the
	// action's deadline came first.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// Reporter is the part of a Session that tells what an action caused. Watch is called before each action; the function it returns is
// called once the action succeeded, under the action's deadline, and adds
// the action's new tabs, downloads and console errors to res. It may wait,
// event-driven and bounded by ctx, for a popup or download the action
// started to arrive or to finish. Its error (UNSUPPORTED: a download the
// browser cannot save) fails the action, which did run.
type Reporter interface {
	Watch(ctx context.Context) func(ctx context.Context, res *ActionResult) error
}

// NothingToReport is the part of the Session contract for an engine, or a
// test's fake, that has nothing to offer there: its actions report no tabs,
// downloads or console errors (Reporter), it records no refused requests
// (BlockedLog), and it never says that its browser went away or that the
// session was ended elsewhere (Ender). Embed it and define the methods the
// engine does have; those win.
type NothingToReport struct{}

// Watch reports nothing.
func (NothingToReport) Watch(context.Context) func(context.Context, *ActionResult) error {
	return func(context.Context, *ActionResult) error { return nil }
}

// BlockedRequests records nothing.
func (NothingToReport) BlockedRequests() []BlockedRequest { return nil }

// Gone never closes: the session does not say when its browser went away.
func (NothingToReport) Gone() <-chan struct{} { return nil }

// EndedElsewhere cannot tell, so it answers false.
func (NothingToReport) EndedElsewhere(context.Context) bool { return false }

// report runs f, an action, between the session's Watch and its report.
func (b *bounded) report(f func(context.Context) (ActionResult, error)) func(context.Context) (ActionResult, error) {
	return func(ctx context.Context) (ActionResult, error) {
		done := b.s.Watch(ctx)
		res, err := f(ctx)
		if err == nil {
			err = done(ctx, &res)
		}
		return res, err
	}
}

// Watch, BlockedRequests, Gone and EndedElsewhere pass on the engine's:
// they are what the session offers, not calls to bound.

func (b *bounded) Watch(ctx context.Context) func(context.Context, *ActionResult) error {
	return b.s.Watch(ctx)
}

func (b *bounded) BlockedRequests() []BlockedRequest { return b.s.BlockedRequests() }

func (b *bounded) Gone() <-chan struct{} { return b.s.Gone() }

func (b *bounded) EndedElsewhere(ctx context.Context) bool { return b.s.EndedElsewhere(ctx) }
