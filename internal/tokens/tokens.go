// Package tokens counts o200k_base tokens offline, the unit agents pay in
// and the one the peer harness reports.
package tokens

import (
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

var enc = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	return tiktoken.GetEncoding("o200k_base")
})

// O200k returns the number of o200k_base tokens in s.
func O200k(s string) (int, error) {
	e, err := enc()
	if err != nil {
		return 0, err
	}
	return len(e.Encode(s, nil, nil)), nil
}
