package main

import "testing"

func TestKindOfCmdline(t *testing.T) {
	server := "/work/bin/browsermcp --headless --maxSessions 60"
	for c, want := range map[string]string{
		"/work/bin/browsermcp\x00--headless\x00--maxSessions\x0060\x00":                                                                "server",
		"/x/peerbench\x00-ours-cmd\x00/work/bin/browsermcp --headless --maxSessions 60\x00":                                            "",
		"/usr/lib/chromium/chromium-headless-shell --no-first-run --headless --remote-debugging-pipe --enable-features=NetworkService": "browser",
		"/usr/lib/chromium/chromium-headless-shell --type=renderer --headless=old --no-sandbox":                                        "renderer",
		"/usr/lib/chromium/chromium-headless-shell --type=gpu-process --no-sandbox":                                                    "gpu-process",
		"/usr/lib/chromium/chromium-headless-shell --type=utility --utility-sub-type=network.mojom.NetworkService --no-sandbox":        "network",
		"/usr/lib/chromium/chromium-headless-shell --type=utility --utility-sub-type=storage.mojom.StorageService":                     "",
		"/usr/lib/chromium/chromium-headless-shell --type=zygote --no-sandbox":                                                         "zygote",
		"/usr/bin/node cli.js --headless": "",
	} {
		if got := kindOfCmdline(c, server); got != want {
			t.Errorf("kindOfCmdline(%q) = %q, want %q", c, got, want)
		}
	}
}
