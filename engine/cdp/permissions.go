package cdp

import (
	"context"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// permissionTypes map engine.PermissionNames (Playwright's) to Chromium's,
// as Playwright's Chromium backend does.
var permissionTypes = map[string]browser.PermissionType{
	"geolocation":          browser.PermissionTypeGeolocation,
	"notifications":        browser.PermissionTypeNotifications,
	"camera":               browser.PermissionTypeVideoCapture,
	"microphone":           browser.PermissionTypeAudioCapture,
	"clipboard-read":       browser.PermissionTypeClipboardReadWrite,
	"clipboard-write":      browser.PermissionTypeClipboardSanitizedWrite,
	"midi":                 browser.PermissionTypeMidi,
	"midi-sysex":           browser.PermissionTypeMidiSysex,
	"background-sync":      browser.PermissionTypeBackgroundSync,
	"accelerometer":        browser.PermissionTypeSensors,
	"gyroscope":            browser.PermissionTypeSensors,
	"magnetometer":         browser.PermissionTypeSensors,
	"ambient-light-sensor": browser.PermissionTypeSensors,
	"payment-handler":      browser.PermissionTypePaymentHandler,
	"storage-access":       browser.PermissionTypeStorageAccess,
	"local-fonts":          browser.PermissionTypeLocalFonts,
	"local-network-access": browser.PermissionTypeLocalNetworkAccess,
}

// grantPermissionsCmd is Browser.grantPermissions, which cdproto no
// longer generates (the protocol marks it deprecated in favour of
// setPermission, one descriptor at a time) but Chromium still serves; it
// takes the permission types Playwright's Chromium backend sends too.
var grantPermissionsCmd = cdp.Command[grantPermissionsParams, cdp.Empty]{Method: "Browser.grantPermissions"}

type grantPermissionsParams struct {
	Permissions      []browser.PermissionType `json:"permissions"`
	BrowserContextID cdp.BrowserContextID     `json:"browserContextId,omitempty"`
}

// grantPermissions grants the session's permissions to every origin in
// its browser context.
func grantPermissions(ctx context.Context, b *browserProc, bc cdp.BrowserContextID, names []string) error {
	if len(names) == 0 {
		return nil
	}
	var types []browser.PermissionType
	for _, n := range names {
		t, ok := permissionTypes[n]
		if !ok {
			return engine.Errorf(engine.Unsupported, "permission %q has no Chromium counterpart", n).With("field", "permissions")
		}
		types = append(types, t)
	}
	c, cancel := context.WithTimeout(b.ctx, answerTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if _, err := chromedp.CallBrowser(c, grantPermissionsCmd, grantPermissionsParams{Permissions: types, BrowserContextID: bc}); err != nil {
		return engine.Wrap(engine.BrowserError, err, "could not grant the session's permissions: "+err.Error())
	}
	return nil
}
