package tools

import (
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// registry lists every tool. Adding a tool is one constructor and one line
// here; long marks the calls that report progress.
func registry(d *Deps) []Tool {
	return []Tool{
		createSession(d),
		turnOn(d, "sessionId", closeSession(d)),
		listSessions(d),
		turnOn(d, "", contextCreate(d)),
		turnOn(d, "", contextSwitch(d)),
		contextList(d),
		turnOn(d, "name", contextClose(d)),
		long(navigate(d)),
		long(goBack(d)),
		long(goForward(d)),
		long(reload(d)),
		long(waitForLoad(d)),
		click(d),
		typeText(d),
		fill(d),
		selectOption(d),
		check(d),
		uncheck(d),
		scroll(d),
		hover(d),
		press(d),
		dragAndDrop(d),
		uploadFile(d),
		getText(d),
		getAllText(d),
		getAttribute(d),
		getValue(d),
		long(screenshot(d)),
		screenshotElement(d),
		extractTable(d),
		extractLinks(d),
		getPageMetadata(d),
		evaluate(d),
		findElement(d),
		findElements(d),
		elementExists(d),
		isVisible(d),
		isEnabled(d),
		long(waitForSelector(d)),
		long(waitFor(d)),
		getCookies(d),
		setCookies(d),
		saveState(d),
		restoreState(d),
		deleteCookies(d),
		localStorage(d),
		sessionStorage(d),
		mouseClick(d),
		mouseMove(d),
		mouseDrag(d),
		blockResource(d),
		mockResponse(d),
		unroute(d),
		setOffline(d),
		setThrottling(d),
		getRequestLog(d),
		getRequest(d),
		startHAR(d),
		stopHAR(d),
		getConsoleMessages(d),
		long(pdf(d)),
		snapshot(d),
		find(d),
		handleDialog(d),
		tabs(d),
		long(verifyElement(d)),
		long(verifyText(d)),
		long(verifyList(d)),
		long(verifyValue(d)),
		long(verifyURL(d)),
		long(verifyTitle(d)),
		generateLocator(d),
		exportTest(d),
		startVideo(d),
		long(stopVideo(d)),
		emulate(d),
		startTracing(d),
		long(stopTracing(d)),
		long(performance(d)),
	}
}

// Tools returns the tool set after checking its invariants; a bad definition
// panics at startup rather than reaching a client.
func Tools(d *Deps) []Tool {
	ts := registry(d)
	seen := map[string]bool{}
	for _, t := range ts {
		switch {
		case seen[t.Def.Name]:
			panic(fmt.Sprintf("tool %s registered twice", t.Def.Name))
		case t.Def.Description == "":
			panic(fmt.Sprintf("tool %s has no description", t.Def.Name))
		case !declared(t.Def.Annotations):
			panic(fmt.Sprintf("tool %s does not declare its four annotation hints through define", t.Def.Name))
		case len(t.Def.RawInputSchema) == 0 || t.in == nil:
			panic(fmt.Sprintf("tool %s has no input schema", t.Def.Name))
		case t.Group != Core && !slices.Contains(OptIn, t.Group):
			panic(fmt.Sprintf("tool %s is in group %q, which --caps cannot turn on", t.Def.Name, t.Group))
		}
		seen[t.Def.Name] = true
	}
	return ts
}

// Definition is a tool as a client other than an MCP one needs it: the
// command line (internal/cli) builds a command from each.
type Definition struct {
	Tool  mcp.Tool
	Group Group
	// Session is set for a tool that runs on one session: it takes a
	// sessionId.
	Session bool
}

// Definitions lists every tool of the registry, in its order, whatever
// --caps turns on: the command line offers them all and the daemon says
// which it serves.
func Definitions() []Definition {
	ts := Tools(&Deps{})
	out := make([]Definition, len(ts))
	for i, t := range ts {
		out[i] = Definition{Tool: t.Def, Group: t.Group, Session: t.session}
	}
	return out
}
