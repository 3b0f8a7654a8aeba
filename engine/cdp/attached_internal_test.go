package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// stuckPage is a page session whose auto-attached child never answers
// Fetch.enable, and which reports how the child is resumed.
type stuckPage struct {
	c       *child
	enable  chan struct{} // Fetch.enable was sent
	resumed chan error    // the context's error when the resume was sent
}

func (p *stuckPage) Call(ctx context.Context, method string, params, res any) error {
	raw, _ := params.(map[string]any)["message"].(string)
	var msg cdproto.Message
	if err := json.Unmarshal([]byte(raw), &msg); err != nil {
		return err
	}
	switch msg.Method {
	case "Fetch.enable":
		close(p.enable)
		<-ctx.Done()
		return ctx.Err()
	case "Runtime.runIfWaitingForDebugger":
		p.resumed <- ctx.Err()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		go p.c.receive(fmt.Sprintf(`{"id":%d,"result":{}}`, msg.ID))
	}
	return nil
}

func (p *stuckPage) Subscribe(string) (<-chan jsonv2.Value, func()) { return nil, func() {} }

// TestInterceptResumesAfterItsContextEnds checks that a paused child is
// resumed even when the context of its setup ended while the setup waited
// (here it is cancelled; a setup that runs out of time is the same):
// resuming it on that context would fail and leave it paused for good.
func TestInterceptResumesAfterItsContextEnds(t *testing.T) {
	tab, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &stuckPage{enable: make(chan struct{}), resumed: make(chan error, 1)}
	g := &guard{tab: tab, page: p}
	c := &child{g: g, id: "child", info: &target.Info{Type: "iframe", TargetID: "frame"},
		wait: map[int64]chan *cdproto.Message{}, done: make(chan struct{})}
	p.c = c
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.intercept(c, true)
	}()
	<-p.enable
	cancel()
	select {
	case err := <-p.resumed:
		if err != nil {
			t.Fatalf("the child was resumed on a context that had ended (%v): it stays paused", err)
		}
	case <-time.After(answerTimeout):
		t.Fatal("the child was never resumed")
	}
	<-done
}
