// Package editdist measures how far apart two names are, for the "did you
// mean" answers to an unknown argument or device name.
package editdist

import "strings"

// Nearest returns the valid name closest to name: equal but for case, or
// within an edit distance of about a third of its length (the first such
// in valid's order); "" when none is.
func Nearest(name string, valid []string) string {
	best, bestD := "", max(2, len(name)/3)+1
	for _, v := range valid {
		if strings.EqualFold(v, name) {
			return v
		}
		if d := Distance(strings.ToLower(name), strings.ToLower(v)); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// maxBytes bounds the names compared: the cost grows with the product of
// their lengths, and no name we suggest is longer.
const maxBytes = 256

// Distance is the Levenshtein distance between a and b, in bytes. Names
// longer than 256 bytes are not compared: their distance is the longer
// one's length.
func Distance(a, b string) int {
	if len(a) > maxBytes || len(b) > maxBytes {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
