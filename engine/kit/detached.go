package kit

import (
	"context"
	"strings"
	"time"
)

// detachedFor bounds how long RetryDetached retries.
const detachedFor = 2 * time.Second

// RetryDetached calls f until it answers other than Chromium's "Not
// attached to an active page", for at most two seconds (and ctx): the
// error of a page command sent while the tab's frame is between two
// documents, as it is for a moment after a failed load, while the
// browser's error page takes the old document's place.
func RetryDetached[T any](ctx context.Context, f func() (T, error)) (T, error) {
	end := time.Now().Add(detachedFor)
	for {
		v, err := f()
		if err == nil || !strings.Contains(err.Error(), "Not attached to an active page") || time.Now().After(end) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
