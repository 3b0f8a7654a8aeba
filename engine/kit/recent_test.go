package kit_test

import (
	"slices"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// A full RecentLog forgets its oldest items, counts them, and yields the
// rest in order either way.
func TestRecentLogKeepsTheNewest(t *testing.T) {
	l := kit.NewRecentLog[int](3)
	var evicted []int
	for i := range 5 {
		if old, ok := l.Add(i); ok {
			evicted = append(evicted, old)
		}
	}
	if got := slices.Collect(l.All()); !slices.Equal(got, []int{2, 3, 4}) || l.Len() != 3 || l.Dropped() != 2 || !slices.Equal(evicted, []int{0, 1}) {
		t.Fatalf("log %v (len %d), dropped %d, evicted %v", got, l.Len(), l.Dropped(), evicted)
	}
	if got := slices.Collect(l.Backward()); !slices.Equal(got, []int{4, 3, 2}) {
		t.Fatalf("backward: %v", got)
	}
	all, total := kit.Newest(&l, 0, func(v int) (int, bool) { return v, true })
	if !slices.Equal(all, []int{2, 3, 4}) || total != 3 {
		t.Fatalf("newest: %v total %d", all, total)
	}
	odd, total := kit.Newest(&l, 1, func(v int) (int, bool) { return v, v%2 == 1 })
	if !slices.Equal(odd, []int{3}) || total != 1 {
		t.Fatalf("filtered: %v total %d", odd, total)
	}
	empty := kit.NewRecentLog[int](2)
	if none, total := kit.Newest(&empty, 5, func(v int) (int, bool) { return v, true }); none == nil || len(none) != 0 || total != 0 {
		t.Fatalf("empty log: %#v total %d", none, total)
	}
}
