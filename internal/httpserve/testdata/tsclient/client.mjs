// Connects to browsermcp with the official TypeScript SDK over Streamable
// HTTP and SSE, opens a session on each, and prints what it saw as JSON.
// Usage: node client.mjs BASE_URL API_KEY PAGE_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

const [base, key, page] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${key}` };
const out = {};

async function drive(name, transport) {
  const client = new Client({ name: "ts-" + name, version: "1.0.0" });
  await client.connect(transport);
  const tools = await client.listTools();
  const created = await client.callTool({ name: "create_session", arguments: {} });
  const id = created.structuredContent.sessionId;
  const nav = await client.callTool({ name: "navigate", arguments: { sessionId: id, url: page } });
  // With --output-schemas the SDK checks structuredContent against each
  // tool's output schema (from listTools) and throws -32602 on a
  // mismatch: an absent attribute is null, and evaluate returns any JSON.
  // Without, it passes structuredContent through unchecked.
  const attr = await client.callTool({ name: "get_attribute", arguments: { sessionId: id, selector: "h1", name: "data-absent" } });
  const evaluated = await client.callTool({ name: "evaluate", arguments: { sessionId: id, script: "({n: 1, list: [true, null]})" } });
  // find's matches and snapshot's saved file, validated the same way.
  const found = await client.callTool({ name: "find", arguments: { sessionId: id, text: "signed in" } });
  const saved = await client.callTool({ name: "snapshot", arguments: { sessionId: id, file: true } });
  const res = await client.readResource({ uri: `browser:///session/${id}` });
  const prompt = await client.getPrompt({ name: "e2e_test", arguments: { test_scenario: "sign in", start_url: page } });
  out[name] = {
    tools: tools.tools.map((t) => t.name),
    outputSchemas: tools.tools.filter((t) => t.outputSchema).length,
    navigated: nav.isError ? JSON.stringify(nav.structuredContent) : nav.structuredContent.url,
    resourceTitle: JSON.parse(res.contents[0].text).title,
    promptHasUrl: prompt.messages[0].content.text.includes(page),
    absentAttribute: attr.structuredContent,
    evaluated: evaluated.structuredContent.result,
    found: found.structuredContent.matches.map((m) => m.line),
    savedRefs: saved.structuredContent.path ? saved.structuredContent.refs : -1,
  };
  await client.close();
}

await drive("streamable", new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers } }));
await drive("sse", new SSEClientTransport(new URL(base + "/sse"), {
  requestInit: { headers },
  eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...init?.headers, ...headers } }) },
}));
console.log(JSON.stringify(out));
