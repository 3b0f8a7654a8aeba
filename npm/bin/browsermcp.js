#!/usr/bin/env node
"use strict";
// The command of the npm package browsermcp. The Go binary comes in a
// platform package, @browsermcp/<platform>-<arch>, one of the package's
// optionalDependencies: npm installs only the one whose os and cpu fields
// match this machine, and downloads nothing else (no install script). This
// shim finds that binary and runs it with our arguments, stdin, stdout and
// stderr (stdout is the MCP channel), passing signals on and exiting as it
// exits.
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const platform = `${process.platform}-${process.arch}`;
// The platform packages are the optionalDependencies named <scope>/<platform>.
const deps = Object.keys(require("../package.json").optionalDependencies || {});
const pkg = deps.find((d) => d.endsWith(`/${platform}`)) || `@browsermcp/${platform}`;
const exe = process.platform === "win32" ? "browsermcp.exe" : "browsermcp";

function fail(msg) {
  process.stderr.write(`browsermcp: ${msg}\n`);
  process.exit(1);
}

let dir;
try {
  dir = path.dirname(require.resolve(`${pkg}/package.json`));
} catch {
  fail(
    `no binary for ${platform}: the package ${pkg} is not installed. ` +
      `npm installs it with browsermcp unless optional dependencies are omitted ` +
      `(--omit=optional, --no-optional) or ${platform} is not a platform browsermcp is built for ` +
      `(linux, darwin and win32 on x64 and arm64). Or build from source: go install . in a checkout.`
  );
}
const bin = path.join(dir, "bin", exe);
if (process.platform !== "win32") {
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(bin, 0o755);
    } catch (e) {
      fail(`${bin} is not executable: ${e.message}`);
    }
  }
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  });
}
child.on("error", (e) => fail(`running ${bin}: ${e.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that our parent sees what happened.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
