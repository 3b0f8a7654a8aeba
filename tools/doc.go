// Package tools is browsermcp's MCP layer: every tool is one constructor in
// the file of its group plus one line in registry() (registry.go). The
// adapter in adapter.go does the plumbing for all of them, against package
// engine only.
//
// NewServer (server.go) serves them, with the MCP server's features beyond
// tools in files named server_*.go: resources, prompts, completions, the
// resource subscriptions, the client's roots, the secrets middleware and
// the protocol checks. No tool is defined in a server_*.go file. The code of
// every action (--codegen) and the recording export_test writes out are in
// codegen.go, which the adapter calls.
//
// Which file defines which tools (TestToolFiles holds this list to the
// registry, so a moved or added tool must be listed here):
//
//	sessions.go     create_session close_session list_sessions
//	contexts.go     browser_context_create browser_context_switch browser_context_list browser_context_close
//	navigation.go   navigate go_back go_forward reload
//	wait.go         wait_for wait_for_selector wait_for_load
//	interaction.go  click type hover press scroll drag_and_drop
//	forms.go        fill select check uncheck upload_file
//	elements.go     find_element find_elements element_exists is_visible is_enabled
//	extraction.go   get_text get_all_text get_attribute get_value extract_table extract_links get_page_metadata
//	evaluate.go     evaluate
//	screenshot.go   screenshot screenshot_element
//	snapshot.go     snapshot
//	find.go         find
//	pdf.go          pdf
//	dialogs.go      handle_dialog
//	tabs.go         tabs
//	state.go        get_cookies set_cookies save_state restore_state delete_cookies local_storage session_storage
//	mouse.go        mouse_click mouse_move mouse_drag
//	network.go      block_resource mock_response unroute set_offline set_throttling get_request_log
//	console.go      get_console_messages
//	verify.go       verify_element verify_text verify_list verify_value verify_url verify_title
//	locate.go       generate_locator
//	export.go       export_test
//	video.go        start_video stop_video
//	emulation.go    emulate
//	har.go          get_request start_har stop_har
//	tracing.go      start_tracing stop_tracing
//	performance.go  performance
package tools
