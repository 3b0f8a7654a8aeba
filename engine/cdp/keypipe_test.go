package cdp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// BenchmarkKeyPipelining measures what typing would gain if the per-key
// Input.dispatchKeyEvent commands were pipelined (all sent in order, then
// all replies awaited) instead of each awaited before the next, as engine/cdp
// does today through chromedp's blocking Target.Call. It talks to its own
// headless Chromium over a raw --remote-debugging-pipe, sends the same two
// trusted key events per character as engine/cdp's typeRune, and checks that
// the field holds the typed text after every iteration, so both ways type
// the same thing. chromedp v0.23 has no way to send without waiting, and its
// Transport is not ours to wrap: this benchmark is the evidence for what a
// transport of our own would buy.
func BenchmarkKeyPipelining(b *testing.B) {
	c := startRawChromium(b, testenv.Chromium(b))
	sess := c.page(b, `<input id="u">`)
	for _, mode := range []string{"sequential", "pipelined"} {
		b.Run(mode, func(b *testing.B) {
			for i := range b.N {
				text := fmt.Sprintf("bench%d", i%100)
				c.eval(b, sess, `(() => { const u = document.getElementById("u"); u.value = ""; u.focus(); return ""; })()`)
				var cmds []rawCmd
				for _, r := range text {
					down := map[string]any{"type": "keyDown", "key": string(r), "text": string(r), "unmodifiedText": string(r)}
					up := map[string]any{"type": "keyUp", "key": string(r)}
					cmds = append(cmds, rawCmd{"Input.dispatchKeyEvent", down}, rawCmd{"Input.dispatchKeyEvent", up})
				}
				if mode == "sequential" {
					for _, cmd := range cmds {
						c.wait(b, c.send(sess, cmd))
					}
				} else {
					var replies []chan rawReply
					for _, cmd := range cmds {
						replies = append(replies, c.send(sess, cmd))
					}
					for _, r := range replies {
						c.wait(b, r)
					}
				}
				if got := c.eval(b, sess, `document.getElementById("u").value`); got != text {
					b.Fatalf("the field holds %q after typing %q", got, text)
				}
			}
		})
	}
}

type rawCmd struct {
	method string
	params map[string]any
}

type rawReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// rawChromium is a minimal CDP client over Chromium's debugging pipe: fd 3
// carries commands to the browser, fd 4 its replies and events, each a JSON
// message ended by a NUL byte.
type rawChromium struct {
	mu      sync.Mutex // orders writes, guards pending
	w       *os.File
	next    atomic.Int64
	pending map[int64]chan rawReply
}

func startRawChromium(b *testing.B, path string) *rawChromium {
	toBrowser, ours, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	theirs, fromBrowser, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--no-first-run",
		"--user-data-dir="+b.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b.Cleanup(func() {
		ours.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		theirs.Close()
	})
	c := &rawChromium{w: ours, pending: map[int64]chan rawReply{}}
	go func() {
		r := bufio.NewReader(theirs)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m struct {
				ID int64 `json:"id"`
				rawReply
			}
			if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
				continue // an event
			}
			c.mu.Lock()
			ch := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m.rawReply
			}
		}
	}()
	return c
}

// send writes a command at once, in call order, and returns where its reply
// will arrive.
func (c *rawChromium) send(session string, cmd rawCmd) chan rawReply {
	id := c.next.Add(1)
	msg := map[string]any{"id": id, "method": cmd.method, "params": cmd.params}
	if session != "" {
		msg["sessionId"] = session
	}
	buf, _ := json.Marshal(msg)
	ch := make(chan rawReply, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[id] = ch
	_, _ = c.w.Write(append(buf, 0))
	return ch
}

func (c *rawChromium) wait(b *testing.B, ch chan rawReply) json.RawMessage {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case r := <-ch:
		if r.Error != nil {
			b.Fatalf("CDP error: %s", r.Error.Message)
		}
		return r.Result
	case <-ctx.Done():
		b.Fatal("no reply from the browser within 10 s")
		return nil
	}
}

func (c *rawChromium) call(b *testing.B, session, method string, params map[string]any) json.RawMessage {
	return c.wait(b, c.send(session, rawCmd{method, params}))
}

// page opens a blank tab, attaches to it and gives it the HTML body.
func (c *rawChromium) page(b *testing.B, body string) string {
	var t struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(c.call(b, "", "Target.createTarget", map[string]any{"url": "about:blank"}), &t)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(c.call(b, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}), &s)
	js, _ := json.Marshal(body)
	c.eval(b, s.SessionID, `(() => { document.body.innerHTML = `+string(js)+`; return ""; })()`)
	return s.SessionID
}

// eval evaluates a string-valued expression in the page.
func (c *rawChromium) eval(b *testing.B, session, expr string) string {
	var out struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	raw := c.call(b, session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err := json.Unmarshal(raw, &out); err != nil || out.ExceptionDetails != nil {
		b.Fatalf("evaluate %s: %s", expr, raw)
	}
	return out.Result.Value
}
