module github.com/seed4af8c199/browsermcp

go 1.26

require (
	github.com/chromedp/cdproto v0.159.2
	github.com/chromedp/chromedp v0.23.0
	github.com/coder/websocket v1.8.12
	github.com/google/jsonschema-go v0.4.2
	github.com/google/uuid v1.6.0
	github.com/mark3labs/mcp-go v1.2.1
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
)

require (
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/playwright-community/playwright-go v0.5200.1
)

require (
	github.com/deckarep/golang-set/v2 v2.7.0 // indirect
	github.com/go-jose/go-jose/v3 v3.0.4 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-stack/stack v1.8.1 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.14.0 // indirect
)
