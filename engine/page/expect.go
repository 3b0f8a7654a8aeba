package page

import (
	_ "embed"
	"strings"
)

//go:embed js/expect.js
var expectJS string

// ExpectBinding is the name of the binding ExpectScript calls.
const ExpectBinding = "__browsermcpExpect"

// ExpectScript returns js/expect.js for binding: an init script that
// calls binding("download") or binding("popup") as the page starts a
// download or opens a popup, so that an action knows to wait for the
// browser's report of it.
func ExpectScript() string { return strings.ReplaceAll(expectJS, "__NAME__", ExpectBinding) }
