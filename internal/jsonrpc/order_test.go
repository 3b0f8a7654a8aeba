package jsonrpc

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// enterAll enters ids on o's line key, each from its own goroutine and in
// the order given, each a little after the one before, and returns the
// order in which they went on.
func enterAll(t *testing.T, o *Order, key string, ids ...any) []any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var got []any
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			done := o.Enter(ctx, key, id)
			mu.Lock()
			got = append(got, id)
			mu.Unlock()
			done()
		})
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	return got
}

func TestOrderPutsRequestsBackInOrder(t *testing.T) {
	o := &Order{Wait: time.Minute}
	o.Base("s", 2) // initialize was 1
	// The client sent 2, 3, 4, 5; they arrived 4, 5, 3, 2.
	got := enterAll(t, o, "s", 4.0, 5.0, 3.0, 2.0)
	want := []any{2.0, 3.0, 4.0, 5.0}
	if !equal(got, want) {
		t.Fatalf("went on in the order %v, want %v", got, want)
	}
	// Another client's line is its own: its first request waits for none.
	// (One after the other: goroutines 20 ms apart may start in either
	// order on a loaded machine, and a 10 that came first would start
	// the line there.)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	returnsSoon(t, "another client's first request waited", func() {
		o.Enter(ctx, "other", 9.0)()
		o.Enter(ctx, "other", 10.0)()
	})
}

func TestOrderWaitsNoLongerThanWait(t *testing.T) {
	o := &Order{Wait: 50 * time.Millisecond}
	o.Base("s", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// 1 never comes: 2 goes on after the wait, and 1, when it comes
	// late, goes on at once.
	o.Enter(ctx, "s", 2.0)()
	o.Enter(ctx, "s", 1.0)()
	o.Enter(ctx, "s", 3.0)()
	o.mu.Lock()
	next, misses := o.lines["s"].next, o.lines["s"].misses
	o.mu.Unlock()
	if next != 4 || misses != 1 {
		t.Fatalf("next %d, misses %d; want 4 and 1", next, misses)
	}
	// After three waits that ran out, the client is not waited for.
	o.Enter(ctx, "s", 5.0)()
	o.Enter(ctx, "s", 7.0)()
	o.mu.Lock()
	misses = o.lines["s"].misses
	o.mu.Unlock()
	if misses != 3 {
		t.Fatalf("misses %d, want 3", misses)
	}
	returnsSoon(t, "a request waited on a client whose gaps were never filled", func() { o.Enter(ctx, "s", 10.0)() })
}

func TestOrderNeverWaitsForOtherIDs(t *testing.T) {
	o := &Order{Wait: time.Hour}
	o.Base("s", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	returnsSoon(t, "a request waited though its id says nothing of the order", func() {
		o.Enter(ctx, "s", "a-string-id")()
		o.Enter(ctx, "s", 1.5)()
		o.Enter(ctx, "", 7.0)()     // no client session
		o.Enter(ctx, "s", 1000.0)() // far ahead: the line starts again there
		o.Enter(ctx, "s", 1001.0)() // and goes on from it
		o.Enter(ctx, "s", 3.0)()    // behind
		var nilOrder *Order
		nilOrder.Enter(ctx, "s", 5.0)()
	})
	// A cancelled request stops waiting.
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	o.Enter(cctx, "s", 1010.0)()
}

func equal(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestOrderNeverPassesARequestThatCame: when a wait runs out, only the ids
// that never came are given up on. A request that came, waiting for the
// same missing id or already on its way, still goes on before the ones
// after it.
func TestOrderNeverPassesARequestThatCame(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// three enters 3 and, once it waits, calls before, which returns the
	// done of the request ahead of it: 3 must wait for that done, though
	// its own wait (50 ms) runs out well before it is called.
	three := func(t *testing.T, o *Order, before func() func()) {
		t.Helper()
		went := make(chan struct{})
		go func() { o.Enter(ctx, "s", 3.0)(); close(went) }()
		testWaiting(t, o, 3)
		release := before()
		select {
		case <-went:
			t.Fatal("3 went on before the request ahead of it had")
		case <-time.After(300 * time.Millisecond):
		}
		release()
		select {
		case <-went:
		case <-time.After(30 * time.Second):
			t.Fatal("3 never went on")
		}
	}
	t.Run("both waiting", func(t *testing.T) {
		// 1 never comes; 3 comes first, then 2: 3's wait runs out first,
		// and gives up on 1 only.
		o := &Order{Wait: 50 * time.Millisecond}
		o.Base("s", 1)
		three(t, o, func() func() { return o.Enter(ctx, "s", 2.0) })
		o.mu.Lock()
		defer o.mu.Unlock()
		if l := o.lines["s"]; l.next != 4 || l.misses != 1 || len(l.arrived) != 0 {
			t.Fatalf("next %d, misses %d, arrived %v; want 4, 1, none", l.next, l.misses, l.arrived)
		}
	})
	t.Run("on its way", func(t *testing.T) {
		// 2 is the next id and has gone past Enter, but has not yet
		// taken its place when 3's wait runs out.
		o := &Order{Wait: 50 * time.Millisecond}
		o.Base("s", 2)
		done2 := o.Enter(ctx, "s", 2.0)
		three(t, o, func() func() { return done2 })
		o.mu.Lock()
		defer o.mu.Unlock()
		if l := o.lines["s"]; l.next != 4 || l.misses != 0 || len(l.arrived) != 0 {
			t.Fatalf("next %d, misses %d, arrived %v; want 4, 0, none", l.next, l.misses, l.arrived)
		}
	})
}

// testWaiting waits until id has come on o's line s.
func testWaiting(t *testing.T, o *Order, id int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		o.mu.Lock()
		l := o.lines["s"]
		came := l != nil && l.arrived[id]
		o.mu.Unlock()
		if came {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d never came", id)
		}
	}
}

// TestOrderKeepsFewClients: the clients' keys, which they send, keep at
// most orderLines lines, and a key longer than orderKeyMax none.
func TestOrderKeepsFewClients(t *testing.T) {
	o := &Order{}
	for i := range 3 * orderLines {
		o.Enter(context.Background(), fmt.Sprint("client-", i), 1.0)()
	}
	o.Enter(context.Background(), strings.Repeat("k", orderKeyMax+1), 1.0)()
	o.Base(strings.Repeat("b", orderKeyMax+1), 1)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.lines) > orderLines {
		t.Fatalf("%d lines kept, want at most %d", len(o.lines), orderLines)
	}
	for k := range o.lines {
		if len(k) > orderKeyMax {
			t.Fatalf("a line for a key of %d bytes", len(k))
		}
	}
}

func TestOrderNoteWaitsForNone(t *testing.T) {
	o := &Order{Wait: time.Hour}
	o.Base("s", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	returnsSoon(t, "a noted request held the ones after it", func() {
		// A batch [3, 2, 1], whose ids go downwards, and a request
		// refused before it ran (4): none waits, and 5 then waits for
		// none of them.
		o.Note("s", 3.0)
		o.Note("s", 2.0)
		o.Note("s", 1.0)
		o.Note("s", 4.0)
		o.Enter(ctx, "s", 5.0)()
	})
}

func TestOrderForgivesAClientWhoseGapsFill(t *testing.T) {
	o := &Order{Wait: 20 * time.Millisecond}
	o.Base("s", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	misses := func() int {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.lines["s"].misses
	}
	// Two ids lost on the way: two waits run out.
	o.Enter(ctx, "s", 2.0)()
	o.Enter(ctx, "s", 4.0)()
	if m := misses(); m != 2 {
		t.Fatalf("misses %d, want 2", m)
	}
	// Then the client sends 5 and 6 at once, 6 arriving first: 6 waits
	// for 5, which comes, and the client is trusted again.
	o.Wait = time.Minute
	var wg sync.WaitGroup
	wg.Go(func() { o.Enter(ctx, "s", 6.0)() })
	testWaiting(t, o, 6)
	o.Enter(ctx, "s", 5.0)()
	wg.Wait()
	if m := misses(); m != 0 {
		t.Fatalf("misses %d after a gap that filled, want 0", m)
	}
}

// returnsSoon runs f and fails with why unless it returns within 30 s.
func returnsSoon(t *testing.T, why string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal(why)
	}
}
