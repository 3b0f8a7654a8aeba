package kit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/kit"
)

func TestRetryDetached(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	detached := errors.New("Protocol error (Page.getNavigationHistory): Not attached to an active page")
	calls := 0
	v, err := kit.RetryDetached(ctx, func() (int, error) {
		calls++
		if calls < 3 {
			return 0, detached
		}
		return 7, nil
	})
	if v != 7 || err != nil || calls != 3 {
		t.Fatalf("RetryDetached = %d, %v after %d calls; want 7 after 3", v, err, calls)
	}
	// Any other error is answered at once.
	other := errors.New("net::ERR_CONNECTION_REFUSED")
	calls = 0
	if _, err := kit.RetryDetached(ctx, func() (int, error) { calls++; return 0, other }); err != other || calls != 1 {
		t.Fatalf("RetryDetached on another error = %v after %d calls", err, calls)
	}
	// A frame that stays detached is answered with its error, in time.
	if _, err := kit.RetryDetached(ctx, func() (int, error) { return 0, detached }); err != detached {
		t.Fatalf("RetryDetached on a lasting detach = %v", err)
	}
}
