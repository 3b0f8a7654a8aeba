// Starts the built browsermcp over stdio with the official TypeScript SDK,
// reads tools/list as real clients do (the SDK then validates every
// structuredContent against its tool's output schema, error results
// included), and calls every listed tool once in a way that fails. It
// prints, per tool, whether the SDK threw and what the result carried, and
// how many tools listed an output schema (only with --output-schemas; the
// successes of create_session and navigate then carry structuredContent
// that no schema describes, which the SDK must pass through).
// Usage: node errors.mjs BINARY PAGE_URL [server args...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, page, ...args] = process.argv.slice(2);
const client = new Client({ name: "ts-errors", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: bin, args, stderr: "inherit" }));
const { tools } = await client.listTools();
const created = await client.callTool({ name: "create_session", arguments: {} });
const s = created.structuredContent.sessionId;
await client.callTool({ name: "navigate", arguments: { sessionId: s, url: page } });

const missing = { sessionId: s, selector: "#no-such-element", timeout: 300 };
// Failures a user meets on a live session; a tool not named here is
// called on a session that does not exist, with its required arguments.
const failing = {
  navigate: { sessionId: s, url: "http://127.0.0.1:1/" },
  get_text: missing,
  snapshot: { sessionId: "no-such-session" },
  click: missing,
  hover: missing,
  check: missing,
  uncheck: missing,
  get_value: missing,
  get_all_text: { sessionId: s, selector: "div[[" },
  find_element: missing,
  extract_table: missing,
  screenshot_element: { sessionId: s, selector: "#no-such-element" },
  get_attribute: { ...missing, name: "id" },
  fill: { ...missing, value: "x" },
  type: { ...missing, text: "x" },
  select: { ...missing, values: ["x"] },
  upload_file: { ...missing, files: ["/etc/hostname"] },
  press: { sessionId: s, selector: "#no-such-element", key: "Enter" },
  drag_and_drop: { sessionId: s, source: "#no-such-element", target: "body", timeout: 300 },
  wait_for: { sessionId: s, text: "text that never appears", timeout: 300 },
  wait_for_selector: missing,
  evaluate: { sessionId: s, script: "(() => { throw new Error('boom') })()" },
  handle_dialog: { sessionId: s, accept: true },
  tabs: { sessionId: s, action: "select", index: 99 },
  emulate: { sessionId: s, device: "iPhone 99x" },
  get_request: { sessionId: s, id: "r999999" },
  stop_har: { sessionId: s },
  close_session: { sessionId: "no-such-session" },
  create_session: { viewport: { width: -5, height: 10 } },
  list_sessions: { unknownArgument: 1 },
  browser_context_list: { unknownArgument: 1 },
  browser_context_switch: { name: "no-such-context" },
  browser_context_close: { name: "no-such-context" },
  browser_context_create: { name: "" },
};

function placeholder(schema) {
  switch (schema?.type) {
    case "string": return schema.enum ? schema.enum[0] : "x";
    case "number": case "integer": return schema.minimum ?? 1;
    case "boolean": return true;
    case "array": return [];
    case "object": return {};
    default: return "x";
  }
}

const out = {};
for (const tool of tools) {
  let a = failing[tool.name];
  if (!a) {
    const props = tool.inputSchema.properties ?? {};
    a = "sessionId" in props ? { sessionId: "no-such-session" } : { unknownArgument: 1 };
    for (const r of tool.inputSchema.required ?? []) a[r] = placeholder(props[r]);
  }
  try {
    const res = await client.callTool({ name: tool.name, arguments: a });
    let body = null;
    try { body = JSON.parse(res.content?.[0]?.text ?? ""); } catch {}
    out[tool.name] = { isError: !!res.isError, errorCode: body?.errorCode ?? "", structured: res.structuredContent !== undefined };
  } catch (e) {
    out[tool.name] = { threw: String(e?.message ?? e) };
  }
}
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), outputSchemas: tools.filter((t) => t.outputSchema).length,
  sessionId: s ?? "", results: out }));
