package cdp

import (
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/network"
)

func TestRingKeepsTheNewest(t *testing.T) {
	r := newRing[int](3)
	for i := range 5 {
		r.push(i)
	}
	got, total := newest(&r, 0, func(v int) (int, bool) { return v, true })
	if !slices.Equal(got, []int{2, 3, 4}) || total != 3 || r.dropped != 2 {
		t.Fatalf("ring: %v total %d dropped %d", got, total, r.dropped)
	}
	odd, total := newest(&r, 1, func(v int) (int, bool) { return v, v%2 == 1 })
	if !slices.Equal(odd, []int{3}) || total != 1 {
		t.Fatalf("filtered: %v total %d", odd, total)
	}
}

// TestNetLogForgetsEvictedLiveEntries fills the log with requests that
// never finish and checks that evicted ones stop being tracked.
func TestNetLogForgetsEvictedLiveEntries(t *testing.T) {
	var l netLog
	l.init()
	for i := range requestLogSize + 10 {
		l.onEvent(&network.EventRequestWillBeSent{RequestID: network.RequestID(strconv.Itoa(i)),
			Request: &network.Request{URL: "http://x/", Method: "GET"}, Type: network.ResourceTypeFetch})
	}
	if len(l.live) != requestLogSize || l.entries.dropped != 10 {
		t.Fatalf("%d live entries, %d dropped", len(l.live), l.entries.dropped)
	}
}

func TestTruncateKeepsUTF8(t *testing.T) {
	if got := truncate("aé", 2); got != "a…" {
		t.Fatalf("truncate split a rune: %q", got)
	}
	if got := truncate("abc", 3); got != "abc" {
		t.Fatalf("truncate changed a short string: %q", got)
	}
}
