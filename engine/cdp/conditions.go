package cdp

import (
	"context"
	"errors"
	"sync"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// conditions are a session's emulated network: offline and throttling are
// set by separate tools but sent to Chromium as one global rule.
type conditions struct {
	mu       sync.Mutex
	offline  bool
	throttle engine.Throttling
}

// SetOffline turns the emulated network off or back on. navigator.onLine
// follows, through Network.overrideNetworkState, because the by-rule
// emulation leaves the navigator alone.
func (s *session) SetOffline(ctx context.Context, offline bool) error {
	c := &s.obs.cond
	c.mu.Lock()
	th := c.throttle
	c.mu.Unlock()
	err := s.runAny(ctx, "set the network offline", func(ctx context.Context, t *chromedp.Target) error {
		if err := applyConditions(ctx, t, offline, th); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: offline, DownloadThroughput: -1, UploadThroughput: -1,
		})
		return unsupported(err, "overriding navigator.onLine")
	})
	if err == nil {
		c.mu.Lock()
		c.offline = offline
		c.mu.Unlock()
	}
	return err
}

// SetThrottling limits bandwidth and adds latency to every request.
func (s *session) SetThrottling(ctx context.Context, th engine.Throttling) error {
	if th.DownloadKbps < 0 || th.UploadKbps < 0 || th.LatencyMs < 0 {
		return engine.Errorf(engine.InvalidParameters, "throughput and latency must not be negative")
	}
	c := &s.obs.cond
	c.mu.Lock()
	off := c.offline
	c.mu.Unlock()
	err := s.runAny(ctx, "set network throttling", func(ctx context.Context, t *chromedp.Target) error {
		return applyConditions(ctx, t, off, th)
	})
	if err == nil {
		c.mu.Lock()
		c.throttle = th
		c.mu.Unlock()
	}
	return err
}

// applyConditions sends the one global rule, or none when the network is
// neither offline nor throttled.
func applyConditions(ctx context.Context, t *chromedp.Target, offline bool, th engine.Throttling) error {
	rules := []*network.Conditions{}
	if offline || !th.Off() {
		rules = append(rules, &network.Conditions{
			Offline:            offline,
			Latency:            th.LatencyMs,
			DownloadThroughput: kbpsToBytes(th.DownloadKbps),
			UploadThroughput:   kbpsToBytes(th.UploadKbps),
		})
	}
	_, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: rules})
	return unsupported(err, "network emulation by rule (Chrome 137 or later)")
}

// unsupported turns the protocol's "method not found" into UNSUPPORTED:
// an attached, older browser may lack a command we use.
func unsupported(err error, feature string) error {
	var ce *cdproto.Error
	if errors.As(err, &ce) && ce.Code == -32601 {
		return engine.Wrap(engine.Unsupported, err, "this browser does not support "+feature+": "+ce.Message)
	}
	return err
}

// kbpsToBytes converts kilobits per second to the protocol's bytes per
// second; 0 (unlimited) becomes -1.
func kbpsToBytes(kbps float64) float64 {
	if kbps == 0 {
		return -1
	}
	return kbps * 1000 / 8
}
