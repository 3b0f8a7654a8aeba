// Starts browsermcp over stdio with the official TypeScript SDK as a client
// that offers one MCP root, uploads a file from inside that root and one
// from outside it, and prints what it saw as JSON (see roots_stdio_test.go).
// Usage: node roots.mjs BINARY PAGE_URL ROOT_DIR INSIDE_FILE OUTSIDE_FILE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";

const [bin, page, root, inside, outside] = process.argv.slice(2);
let asked = 0;
const client = new Client({ name: "ts-roots", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => {
  asked++;
  return { roots: [{ uri: pathToFileURL(root).href, name: "project" }] };
});
await client.connect(new StdioClientTransport({ command: bin, args: ["--headless"], env: process.env, stderr: "inherit" }));
await client.listTools();
const created = await client.callTool({ name: "create_session", arguments: {} });
const id = created.structuredContent.sessionId;
await client.callTool({ name: "navigate", arguments: { sessionId: id, url: page } });
const upload = async (file) => {
  const r = await client.callTool({ name: "upload_file", arguments: { sessionId: id, selector: "#one", files: [file] } });
  if (r.isError) {
    return { isError: true, errorCode: JSON.parse(r.content[0].text).errorCode };
  }
  const title = await client.callTool({ name: "evaluate", arguments: { sessionId: id, script: "() => document.title" } });
  return { isError: false, title: title.structuredContent.result };
};
const out = { inside: await upload(inside), outside: await upload(outside) };
out.asked = asked;
await client.close();
console.log(JSON.stringify(out));
