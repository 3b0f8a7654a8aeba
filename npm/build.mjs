#!/usr/bin/env node
// Builds the npm packages of browsermcp (make npm): one platform package
// per os and cpu, @browsermcp/<platform>-<arch>, each holding the Go binary
// cross-compiled with CGO_ENABLED=0 and declaring its os and cpu, and the
// main package browsermcp, whose optionalDependencies name them all and
// whose bin is a small shim (bin/browsermcp.js) that runs the one npm
// installed. Nothing is downloaded at install time and no package has an
// install script. Each package is packed with npm pack into OUT.
//
//   node npm/build.mjs --out DIR --version V [--platforms linux-x64,...] [--binary PATH]
//
// --platforms builds some of the platforms only (the main package still
// names all six); --binary packs an already built binary for the single
// platform given instead of compiling it (the tests use the binary they
// built).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// SCOPE names the platform packages; the shim finds them by the main
// package's optionalDependencies, so this is the one place to change it.
const SCOPE = "@browsermcp";
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);

// Node's names (the os and cpu fields, process.platform and process.arch)
// and Go's.
const PLATFORMS = {
  "linux-x64": { os: "linux", cpu: "x64", goos: "linux", goarch: "amd64" },
  "linux-arm64": { os: "linux", cpu: "arm64", goos: "linux", goarch: "arm64" },
  "darwin-x64": { os: "darwin", cpu: "x64", goos: "darwin", goarch: "amd64" },
  "darwin-arm64": { os: "darwin", cpu: "arm64", goos: "darwin", goarch: "arm64" },
  "win32-x64": { os: "win32", cpu: "x64", goos: "windows", goarch: "amd64" },
  "win32-arm64": { os: "win32", cpu: "arm64", goos: "windows", goarch: "arm64" },
};

function args() {
  const a = { platforms: Object.keys(PLATFORMS).join(",") };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, "");
    const v = argv[i + 1];
    if (!["out", "version", "platforms", "binary"].includes(k) || v === undefined || v === "" || v.startsWith("--")) {
      throw new Error(`unknown or incomplete argument ${argv[i]}`);
    }
    a[k] = v;
  }
  if (!a.out || !a.version) throw new Error("--out and --version are required");
  // npm's versions are semver; the binary reports the same one.
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(a.version)) {
    throw new Error(`--version ${JSON.stringify(a.version)} is not a semver version such as 1.2.3 or 1.2.3-rc.1`);
  }
  a.platforms = a.platforms.split(",").filter(Boolean);
  for (const p of a.platforms) {
    if (!PLATFORMS[p]) throw new Error(`unknown platform ${p} (known: ${Object.keys(PLATFORMS).join(", ")})`);
  }
  if (a.binary && a.platforms.length !== 1) throw new Error("--binary needs exactly one --platforms");
  return a;
}

const common = {
  license: "UNLICENSED",
  homepage: "https://github.com/seed4af8c199/browsermcp",
  repository: { type: "git", url: "git+https://github.com/seed4af8c199/browsermcp.git" },
};

function writeJSON(file, v) {
  fs.writeFileSync(file, JSON.stringify(v, null, 2) + "\n");
}

// pack runs npm pack in dir and returns the tarball's path in out.
function pack(dir, out) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop();
  return path.join(out, name);
}

function main() {
  const a = args();
  const out = path.resolve(a.out);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, "pkgs"), { recursive: true });

  for (const p of a.platforms) {
    const t = PLATFORMS[p];
    const dir = path.join(out, "pkgs", p);
    const exe = t.os === "win32" ? "browsermcp.exe" : "browsermcp";
    fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
    const bin = path.join(dir, "bin", exe);
    if (a.binary) {
      fs.copyFileSync(a.binary, bin);
    } else {
      process.stderr.write(`go build ${t.goos}/${t.goarch}\n`);
      execFileSync("go", ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${a.version}`, "-o", bin, "."], {
        cwd: root,
        stdio: ["ignore", "inherit", "inherit"],
        env: { ...process.env, CGO_ENABLED: "0", GOOS: t.goos, GOARCH: t.goarch },
      });
    }
    fs.chmodSync(bin, 0o755);
    writeJSON(path.join(dir, "package.json"), {
      name: `${SCOPE}/${p}`,
      version: a.version,
      description: `The browsermcp binary for ${t.goos}/${t.goarch}; install browsermcp, not this`,
      os: [t.os],
      cpu: [t.cpu],
      files: ["bin/"],
      preferUnplugged: true,
      ...common,
    });
    fs.writeFileSync(
      path.join(dir, "README.md"),
      `# ${SCOPE}/${p}\n\nThe browsermcp binary for ${t.goos}/${t.goarch}. ` +
        `Install or run \`browsermcp\` (\`npx browsermcp\`), which depends on this package on this platform.\n`
    );
    process.stderr.write(`packed ${pack(dir, out)}\n`);
  }

  const dir = path.join(out, "pkgs", "browsermcp");
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.copyFileSync(path.join(here, "bin", "browsermcp.js"), path.join(dir, "bin", "browsermcp.js"));
  fs.chmodSync(path.join(dir, "bin", "browsermcp.js"), 0o755);
  fs.copyFileSync(path.join(root, "README.md"), path.join(dir, "README.md"));
  writeJSON(path.join(dir, "package.json"), {
    name: "browsermcp",
    version: a.version,
    description: "MCP server that lets AI agents drive real browsers in isolated, concurrent sessions (a Go binary)",
    keywords: ["mcp", "model-context-protocol", "browser", "chromium", "automation"],
    bin: { browsermcp: "bin/browsermcp.js" },
    files: ["bin/"],
    engines: { node: ">=16" },
    optionalDependencies: Object.fromEntries(Object.keys(PLATFORMS).map((p) => [`${SCOPE}/${p}`, a.version])),
    ...common,
  });
  process.stderr.write(`packed ${pack(dir, out)}\n`);
}

try {
  main();
} catch (e) {
  process.stderr.write(`npm/build.mjs: ${e.message}\n`);
  process.exit(1);
}
