package engines

import (
	"context"
	"log/slog"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/grid"
)

// newGrid builds the Grid engine and checks, at startup, that the Grid
// answers: a wrong --grid-url is an EndpointError. A Grid that answers but
// is not ready yet (no node has registered) is only logged, because nodes
// come and go while the server runs.
func newGrid(c Config, log *slog.Logger) (engine.Engine, error) {
	pol, args, err := chromiumSetup(c)
	if err != nil {
		return nil, err
	}
	g, err := grid.New(grid.Config{
		URL: c.GridURL, QueueTimeout: c.GridQueueTimeout, KeepOnShutdown: c.GridKeepSessions, ExecPath: c.ExecutablePath, Args: args,
		Headless: c.Headless, Viewport: c.Viewport, Logger: log, Policy: pol, Dialogs: c.Dialogs,
	})
	if err != nil {
		return nil, &EndpointError{Flag: "--grid-url", URL: c.GridURL, Err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), endpointCheckTimeout)
	defer cancel()
	st, err := g.Check(ctx)
	if err != nil {
		return nil, &EndpointError{Flag: "--grid-url", URL: c.GridURL, Err: err}
	}
	if !st.Ready {
		log.Warn("the Grid is not ready yet; sessions wait in its queue until a node is", "grid", c.GridURL, "message", st.Message)
	} else {
		log.Info("using the Grid", "grid", c.GridURL, "nodes", len(st.Nodes))
	}
	return g, nil
}
