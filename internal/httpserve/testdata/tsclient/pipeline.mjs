// Sends navigate, click and snapshot on one session at once, without
// waiting for the answers, as an agent's parallel tool calls do, through
// the official TypeScript SDK over Streamable HTTP and legacy SSE (each
// request its own fetch), REPS times, and prints the repetitions whose
// calls did not run in the order they were sent, as JSON.
// Usage: node pipeline.mjs BASE_URL API_KEY SITE_URL REPS
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

const [base, key, site, repsArg] = process.argv.slice(2);
const reps = Number(repsArg);
const headers = { Authorization: `Bearer ${key}` };
const out = {};

function errorCode(res) {
  try {
    return JSON.parse(res.content[0].text).errorCode;
  } catch {
    return "unreadable error";
  }
}

async function drive(name, transport) {
  const client = new Client({ name: "ts-pipeline-" + name, version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  const created = await client.callTool({ name: "create_session", arguments: {} });
  const sessionId = created.structuredContent.sessionId;
  const wrong = [];
  for (let rep = 0; rep < reps; rep++) {
    const url = `${site}/form.html?rep=${rep}`;
    const [nav, click, snap] = await Promise.all([
      client.callTool({ name: "navigate", arguments: { sessionId, url } }),
      client.callTool({ name: "click", arguments: { sessionId, selector: "#count" } }),
      client.callTool({ name: "snapshot", arguments: { sessionId } }),
    ]);
    const seen = {
      rep,
      navigate: nav.isError ? errorCode(nav) : "ok",
      click: click.isError ? errorCode(click) : "ok",
      snapshot: snap.isError ? errorCode(snap) : `${snap.structuredContent.url} titled ${snap.structuredContent.title}`,
    };
    if (seen.navigate !== "ok" || seen.click !== "ok" || seen.snapshot !== `${url} titled clicked 1`) {
      wrong.push(seen);
    }
  }
  out[name] = { reps, wrong };
  await client.close();
}

await drive("streamable", new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers } }));
await drive("sse", new SSEClientTransport(new URL(base + "/sse"), {
  requestInit: { headers },
  eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...init?.headers, ...headers } }) },
}));
console.log(JSON.stringify(out));
