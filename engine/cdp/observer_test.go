package cdp

import (
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/network"
)

// TestNetLogForgetsEvictedLiveEntries fills the log with requests that
// never finish and checks that evicted ones stop being tracked.
func TestNetLogForgetsEvictedLiveEntries(t *testing.T) {
	var l netLog
	l.init()
	for i := range requestLogSize + 10 {
		l.onEvent(&network.EventRequestWillBeSent{RequestID: network.RequestID(strconv.Itoa(i)),
			Request: &network.Request{URL: "http://x/", Method: "GET"}, Type: network.ResourceTypeFetch})
	}
	if len(l.live) != requestLogSize || l.entries.Dropped() != 10 {
		t.Fatalf("%d live entries, %d dropped", len(l.live), l.entries.Dropped())
	}
}
