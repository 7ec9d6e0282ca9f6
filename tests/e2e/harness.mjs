// Shared by the e2e tests and measure.mjs: a static server for dist/ that
// records every request (optionally under a sub-path, to prove relative
// asset URLs), and Debian's Chromium through playwright-core.
//
// Environment: HINDSIGHT_DIST (default ../../dist), CHROMIUM (default
// /usr/bin/chromium).

import { createServer } from "node:http";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "..", "..");
export const dist = path.resolve(process.env.HINDSIGHT_DIST ?? path.join(root, "dist"));
export const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const screenshots = path.join(root, "docs", "screenshots");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
};

/**
 * Serves dist/ at `http://127.0.0.1:PORT{prefix}` and records every path
 * asked for. `gzip` sizes are measured by measure.mjs, not served.
 */
export async function serveDist({ prefix = "/" } = {}) {
  await stat(path.join(dist, "index.html")).catch(() => {
    throw new Error(`${dist}/index.html is missing: run \`trunk build --release\` first`);
  });
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(url.pathname);
    if (url.pathname.endsWith("/__blank__")) {
      // An empty page of the same origin, for clearing storage (no icon
      // request, so no 404 in the console).
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end('<!doctype html><link rel="icon" href="data:,"><title>blank</title>');
      return;
    }
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const inside = decodeURIComponent(url.pathname.slice(prefix.length - 1));
    let file = path.normalize(path.join(dist, inside));
    if (file !== dist && !file.startsWith(dist + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = path.join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    server,
    requests,
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A fresh Chromium profile; `offsite` collects requests leaving 127.0.0.1. */
export async function launch() {
  await stat(chromiumPath).catch(() => {
    throw new Error(`no Chromium at ${chromiumPath} (set CHROMIUM)`);
  });
  const profile = await mkdtemp(path.join(tmpdir(), "hindsight-e2e-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const offsite = [];
  context.on("request", (request) => {
    const url = new URL(request.url());
    const local = url.protocol === "blob:" || url.protocol === "data:" || url.hostname === "127.0.0.1";
    if (!local) offsite.push(request.url());
  });
  return {
    context,
    offsite,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A new page at `url` with console errors and uncaught exceptions collected,
 * waiting for the first results. `fresh` forgets what an earlier test left
 * in localStorage first.
 */
export async function open(context, url, { fresh = true, waitForResults = true } = {}) {
  const page = await context.newPage();
  if (fresh) {
    // From a page of the same origin that is not the app, so no pending
    // save of the app can write the old state back in between.
    await page.goto(new URL("__blank__", url).href);
    await page.evaluate(() => localStorage.clear());
  }
  const errors = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(url);
  if (waitForResults) await page.locator('[data-testid="results"]').waitFor({ timeout: 30_000 });
  return { page, errors };
}

/** The `name` attribute of every element matching `selector`. */
export const attr = (page, selector, name) =>
  page.locator(selector).evaluateAll((els, name) => els.map((e) => e.getAttribute(name)), name);

/**
 * Drops a file made in the page on the input panel. `what` is
 * `{ text }` (that text), `{ lines: N }` (N numbered lines) or
 * `{ log, bytes }` (the text `log` followed by filler log lines up to
 * `bytes`). Large texts are made in the page, not sent over the protocol.
 */
export async function dropFile(page, name, what) {
  const drop = await page.evaluateHandle(
    ([name, what]) => {
      let text;
      if (what.text !== undefined) {
        text = what.text;
      } else if (what.lines !== undefined) {
        const parts = [];
        for (let i = 1; i <= what.lines; i++) parts.push(`line ${i} of a long log: nothing to see here`);
        text = parts.join("\n") + "\n";
      } else {
        const filler =
          "[2026-02-11 22:35:10 TP0] Decode batch. #running-req: 1, #token: 1234, token usage: 0.01, gen throughput (token/s): 42.00, #queue-req: 0\n";
        const count = Math.max(0, Math.ceil((what.bytes - what.log.length) / filler.length));
        text = what.log + filler.repeat(count);
      }
      const data = new DataTransfer();
      data.items.add(new File([text], name, { type: "text/plain" }));
      return data;
    },
    [name, what],
  );
  await page.locator(".inputs").dispatchEvent("drop", { dataTransfer: drop });
}
