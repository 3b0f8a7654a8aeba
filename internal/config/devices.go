package config

import (
	"fmt"
	"strings"

	"github.com/seed4af8c199/browsermcp/internal/devices"
)

func checkDevice(name string) error {
	if _, ok := devices.Lookup(name); name == "" || ok {
		return nil
	}
	near := devices.Closest(name, 5)
	if len(near) == 0 {
		return fmt.Errorf("unknown device (it must be one of Playwright %s's %d device names; see README)", devices.Version, devices.Count())
	}
	return fmt.Errorf("unknown device; closest: %s (Playwright %s's %d device names are accepted; see README)",
		strings.Join(quoteAll(near), ", "), devices.Version, devices.Count())
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return q
}
