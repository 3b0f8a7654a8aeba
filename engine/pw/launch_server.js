// Launches a browser through one of Playwright's internal browser types and
// serves it over Playwright's WebSocket protocol, for browser types that
// playwright-go does not expose (Firefox over WebDriver BiDi: _bidiFirefox).
// It prints the endpoint on one line of stdout. When stdin closes, because
// browsermcp exited or closed it, it closes the browser and exits, so a
// killed server never leaves a browser behind.
//
// argv: <driver package dir> <browser type> <launchServer options as JSON>
const [pkg, type, optsJSON] = process.argv.slice(1);
const playwright = require(pkg);
(async () => {
  const server = await playwright[type].launchServer(JSON.parse(optsJSON));
  server.on("close", () => process.exit(0));
  process.stdout.write(server.wsEndpoint() + "\n");
  const stop = () => server.close().finally(() => process.exit(0));
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
})().catch((e) => {
  process.stderr.write(String((e && e.message) || e) + "\n");
  process.exit(1);
});
