package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// TreePSS sums the proportional set size, in KiB, of process pid and all its
// descendants, read from /proc. It is the memory figure the peer harness
// reports.
func TreePSS(pid int) int64 {
	var total int64
	for _, p := range Tree(pid) {
		total += PSS(p)
	}
	return total
}

// Tree lists process pid and all its descendants, read from /proc.
func Tree(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// The command name may hold spaces: fields follow the last ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 {
			pp, _ := strconv.Atoi(f[1])
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		out = append(out, p)
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return out
}

// PSS is a process's proportional set size in KiB, 0 when it is gone.
func PSS(pid int) int64 { return procKiB(pid, "smaps_rollup", "Pss:") }

// RSS is a process's resident set size (VmRSS) in KiB, 0 when it is gone.
func RSS(pid int) int64 { return procKiB(pid, "status", "VmRSS:") }

// procKiB reads the kB value of the line starting with field in
// /proc/pid/file; 0 when there is none.
func procKiB(pid int, file, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
