package cdp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Targets inside a page. Chromium runs a cross-site iframe (an OOPIF) and a
// worker as targets of their own, whose requests the page's Fetch domain
// never sees. Under a policy with host rules the guard makes the page
// auto-attach to them paused (Target.setAutoAttach with
// waitForDebuggerOnStart), installs the same interception on each, and only
// then lets it run (Runtime.runIfWaitingForDebugger), so the policy holds
// from its first request.
//
// chromedp routes messages by session id and drops those of sessions it did
// not attach itself, and only the session that auto-attached a target may
// resume it. So the auto-attach is not flat: each child is reached through
// its parent's session with Target.sendMessageToTarget and heard from
// through Target.receivedMessageFromTarget, which chromedp delivers to the
// page's listeners like any event. A child's own children (an OOPIF inside
// an OOPIF) are nested one level deeper the same way.

// child is one auto-attached target. It implements cdp.Session, so the
// guard and the router answer its paused requests with the same code as the
// page's.
type child struct {
	g      *guard
	id     target.SessionID
	info   *target.Info
	parent *child // nil: attached by the page itself

	next atomic.Int64
	mu   sync.Mutex
	wait map[int64]chan *cdproto.Message
	done chan struct{} // closed on detach
}

var errChildGone = errors.New("the attached target went away")

// Call sends a command to the child and waits for its reply.
func (c *child) Call(ctx context.Context, method string, params, res any) error {
	id := c.next.Add(1)
	ch := make(chan *cdproto.Message, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.wait, id)
		c.mu.Unlock()
	}()
	msg := cdproto.Message{ID: id, Method: cdproto.MethodType(method)}
	if params != nil {
		p, err := jsonv2.Marshal(params, chromedp.DefaultMarshalOptions)
		if err != nil {
			return err
		}
		msg.Params = p
	}
	raw, err := jsonv2.Marshal(msg, chromedp.DefaultMarshalOptions)
	if err != nil {
		return err
	}
	if err := c.send(ctx, string(raw)); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return fmt.Errorf("%s: %w", method, errChildGone)
	case reply := <-ch:
		if reply.Error != nil {
			return reply.Error
		}
		if res == nil || len(reply.Result) == 0 {
			return nil
		}
		return jsonv2.Unmarshal(reply.Result, res, chromedp.DefaultUnmarshalOptions)
	}
}

// Subscribe is not used on children: their events reach the guard through
// the page's listener. It returns a closed channel.
func (c *child) Subscribe(string) (<-chan jsonv2.Value, func()) {
	ch := make(chan jsonv2.Value)
	close(ch)
	return ch, func() {}
}

// send delivers one raw message to the child through its parent's session.
func (c *child) send(ctx context.Context, raw string) error {
	params := map[string]any{"sessionId": c.id, "message": raw}
	if c.parent == nil {
		return c.g.page.Call(ctx, "Target.sendMessageToTarget", params, nil)
	}
	// The parent's reply to the wrapping command only says the message was
	// passed on; the child's own reply is what the caller waits for.
	return c.parent.Call(ctx, "Target.sendMessageToTarget", params, nil)
}

// receive handles one message from the child. It runs on the page's reader
// goroutine, so it only hands things on and never waits.
func (c *child) receive(raw string) {
	var msg cdproto.Message
	if err := jsonv2.Unmarshal([]byte(raw), &msg, chromedp.DefaultUnmarshalOptions); err != nil {
		return
	}
	if msg.ID != 0 {
		c.mu.Lock()
		ch := c.wait[msg.ID]
		c.mu.Unlock()
		if ch != nil {
			ch <- &msg
		}
		return
	}
	ev, err := cdproto.UnmarshalMessage(&msg, chromedp.DefaultUnmarshalOptions)
	if err != nil {
		return
	}
	c.g.childEvent(c, ev)
}

// children tracks the attached targets of one page by session id, at any
// depth.
type children struct {
	mu sync.Mutex
	m  map[target.SessionID]*child
}

func (cs *children) get(id target.SessionID) *child {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.m[id]
}

func (cs *children) add(c *child) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[target.SessionID]*child{}
	}
	cs.m[c.id] = c
}

// remove forgets a detached child and the ones attached through it.
func (cs *children) remove(id target.SessionID) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.m[id]
	if c == nil {
		return
	}
	delete(cs.m, id)
	close(c.done)
	for sid, o := range cs.m {
		if o.parent == c {
			delete(cs.m, sid)
			close(o.done)
		}
	}
}

// autoAttach makes a session (the page's, or a child's) attach to its
// targets paused, so that the guard can intercept them before they run.
func autoAttach(ctx context.Context, s cdp.Session) error {
	if _, err := cdp.Call(ctx, s, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: false, Flatten: new(true)}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, s, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: new(false)})
	return err
}

// attached handles Target.attachedToTarget from the page or from a child.
// Runs on the reader goroutine.
func (g *guard) attached(parent *child, ev *target.EventAttachedToTarget) {
	c := &child{g: g, id: ev.SessionID, info: ev.TargetInfo, parent: parent,
		wait: map[int64]chan *cdproto.Message{}, done: make(chan struct{})}
	g.kids.add(c)
	go g.intercept(c, ev.WaitingForDebugger)
}

// releaseTimeout bounds closing or resuming a paused child.
const releaseTimeout = 2 * time.Second

// intercept installs the guard on a child and then resumes it. Whatever
// fails, the child is resumed: a target left waiting would hang its page.
// An iframe whose Fetch cannot be enabled is closed as well, because it
// would run unguarded. Closing and resuming run on a context of their own,
// so that a setup that ran out of time, or was cancelled, still lets the
// child go.
func (g *guard) intercept(c *child, waiting bool) {
	ctx, cancel := context.WithTimeout(g.tab, answerTimeout)
	defer cancel()
	guarded := false
	switch c.info.Type {
	case "iframe", "worker":
		_, err := cdp.Call(ctx, c, fetch.Enable, fetch.EnableParams{
			Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
		})
		guarded = err == nil
		if guarded {
			// The child's requests go into the page's request log.
			cdp.Call(ctx, c, network.Enable, network.EnableParams{})
			if c.info.Type == "iframe" {
				autoAttach(ctx, c)
			}
		}
	default:
		guarded = true // targets that make no requests of their own
	}
	release := func(f func(ctx context.Context)) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		f(ctx)
	}
	if !guarded && c.info.Type == "iframe" {
		release(func(ctx context.Context) {
			chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: c.info.TargetID})
		})
	}
	if waiting {
		release(func(ctx context.Context) { cdp.Call(ctx, c, runtime.RunIfWaitingForDebugger, cdp.Empty{}) })
	}
}

// childEvent handles an event of a child. Runs on the reader goroutine.
func (g *guard) childEvent(c *child, ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		g.enqueue(c, ev)
	case *network.EventRequestWillBeSent, *network.EventRequestWillBeSentExtraInfo, *network.EventResponseReceived,
		*network.EventLoadingFinished, *network.EventLoadingFailed:
		g.routes.log.onEvent(ev)
	case *target.EventAttachedToTarget:
		g.attached(c, ev)
	case *target.EventReceivedMessageFromTarget:
		if k := g.kids.get(ev.SessionID); k != nil {
			k.receive(ev.Message)
		}
	case *target.EventDetachedFromTarget:
		g.kids.remove(ev.SessionID)
	}
}
