// Package kit is the backends' shared toolkit: what engine/cdp and
// engine/pw (and engine/grid where it applies) each need to build a Session,
// written once. It holds the browser Keeper and its LaunchState, the TabSet
// of a session's pages, the settle loop's steps (Settling), the bounded logs
// (RecentLog, BlockedRecorder, ErrorCounter), the DownloadLog and the saving
// of downloads, and the local proxy forwarder that carries a proxy login
// (AuthProxy, Conns). It imports only engine; tools and the session runtime
// never need it, and a backend never imports another backend.
package kit
