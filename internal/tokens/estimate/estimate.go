// Package estimate estimates o200k_base token counts without the
// tokenizer: the server caps what it answers in tokens on every action,
// and loading the o200k vocabulary costs ~23 MiB of heap and a slow first
// call. internal/tokens counts exactly, for tests and benchmarks.
package estimate

// O200k estimates the o200k_base tokens of s: a run of ASCII letters is
// one token per eight letters (rounded up), a run of digits one per three
// (o200k splits numbers so), every other character but a space one. On the
// test site's outlines it lands between 0.9 and 1.2 times the exact count in total
// (testdata/golden/snapshot; see the test).
func O200k(s string) int {
	n, run, digits := 0, 0, false
	flush := func() {
		switch {
		case run == 0:
		case digits:
			n += (run + 2) / 3
		default:
			n += (run + 7) / 8
		}
		run = 0
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if run > 0 && !digits {
				flush()
			}
			digits = true
			run++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if run > 0 && digits {
				flush()
			}
			digits = false
			run++
		case c == ' ':
			flush()
		default:
			flush()
			n++
		}
		// A multi-byte character counts once.
		i++
		if c >= 0x80 {
			for i < len(s) && s[i]&0xC0 == 0x80 {
				i++
			}
		}
	}
	flush()
	return n
}
