package engine

import "time"

// Defaults every engine uses, so that tools behave the same on each.
const (
	// DefaultActionTimeout is how long an element action waits for its
	// element when the caller gives no timeout.
	DefaultActionTimeout = 5 * time.Second
	// DefaultNavigationTimeout bounds a navigation when the caller gives none.
	DefaultNavigationTimeout = 30 * time.Second
	// SettleQuiet is how long the network must stay quiet after requests an
	// action started before the action returns.
	SettleQuiet = 50 * time.Millisecond
	// SettleNetworkMax bounds the wait for requests an action started.
	SettleNetworkMax = 2 * time.Second
)
