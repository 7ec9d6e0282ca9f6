// Measures the built page (dist/) in headless Chromium and prints:
//   - the gzipped transfer size of everything the page loads,
//   - load to interactive on localhost (navigation start to the Analyze
//     button in the DOM, and to the seed's results),
//   - time to analyze the seed and a 100 MB input (in the worker, and from
//     click to results on screen),
//   - the longest main-thread task while analyzing (Long Tasks API; tasks
//     under 50 ms are not reported by the browser, hence "< 50 ms").
//
//   trunk build --release && node tests/e2e/measure.mjs [MEGABYTES]

import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { dist, dropFile, launch, serveDist } from "./harness.mjs";

const megabytes = Number(process.argv[2] ?? 100);

/** Sizes of every file in dist/, raw and gzipped (level 9). */
async function sizes() {
  const rows = [];
  for (const name of await readdir(dist)) {
    if (name.endsWith(".png")) continue;
    const body = await readFile(path.join(dist, name));
    rows.push({ name, raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
  }
  return rows;
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

// Runs in the page before its own scripts: timestamps for the first
// Analyze button and the first results, and every long task.
function instrument() {
  window.__measure = { longTasks: [] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      window.__measure.longTasks.push({ start: entry.startTime, duration: entry.duration });
    }
  }).observe({ type: "longtask", buffered: true });
  // When Analyze is pressed: before the page's own handler runs.
  document.addEventListener(
    "click",
    (event) => {
      if (event.target?.closest?.('[data-testid="analyze"]')) window.__measure.clicked = event.timeStamp;
    },
    { capture: true },
  );
  new MutationObserver(() => {
    const m = window.__measure;
    if (!m.interactive && document.querySelector('[data-testid="analyze"]')) m.interactive = performance.now();
    if (!m.results && document.querySelector('[data-testid="results"]')) m.results = performance.now();
  }).observe(document, { childList: true, subtree: true });
}

/** Clicks Analyze and waits for new results; wall time, worker time, longest task. */
async function analyze(page) {
  // Each analysis has a new run number.
  const before = await page.evaluate(() => {
    window.__measure.longTasks = [];
    return document.querySelector('[data-testid="results"]')?.dataset.run ?? "";
  });
  // A real click (input events from the browser, not `element.click()`
  // inside an evaluation): only then does the Long Tasks API see the click
  // handler's own task.
  await page.getByTestId("analyze").click();
  const clicked = await page.evaluate(() => window.__measure.clicked);
  await page.waitForFunction(
    (before) => {
      const results = document.querySelector('[data-testid="results"]');
      return results && results.dataset.run !== before && !document.querySelector('[data-testid="progress"]');
    },
    before,
    { timeout: 120_000, polling: 20 },
  );
  // One frame later, so the results are painted.
  const shown = await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now()))),
  );
  const worker = await page.getByTestId("timing").innerText();
  const longTasks = await page.evaluate(
    (from) => window.__measure.longTasks.filter((t) => t.start >= from),
    clicked,
  );
  const longest = longTasks.reduce((max, t) => Math.max(max, t.duration), 0);
  return { wall: shown - clicked, worker, longest, longTasks, clicked };
}

const site = await serveDist();
const browser = await launch();
try {
  const rows = await sizes();
  const total = rows.reduce((sum, r) => sum + r.gzip, 0);
  console.log("Transfer size (gzip -9):");
  for (const r of rows.sort((a, b) => b.gzip - a.gzip)) {
    console.log(`  ${r.name.padEnd(44)} ${kb(r.raw).padStart(10)} raw ${kb(r.gzip).padStart(10)} gzip`);
  }
  console.log(`  ${"total".padEnd(44)} ${"".padStart(14)} ${kb(total).padStart(10)} gzip`);

  const page = await browser.context.newPage();
  await page.addInitScript(instrument);
  await page.goto(new URL("__blank__", site.url).href);
  await page.evaluate(() => localStorage.clear());
  await page.goto(site.url);
  const loads = [];
  for (let i = 0; i < 3; i++) {
    await page.reload();
    await page.getByTestId("results").waitFor();
    loads.push(await page.evaluate(() => ({ ...window.__measure })));
  }
  const best = (key) => Math.min(...loads.map((l) => l[key]));
  console.log(`Load to interactive (Analyze button in the DOM), best of 3: ${best("interactive").toFixed(0)} ms`);
  console.log(`Load to the seed's results on screen, best of 3: ${best("results").toFixed(0)} ms`);

  const seedRuns = [];
  for (let i = 0; i < 3; i++) seedRuns.push(await analyze(page));
  const seedBest = seedRuns.reduce((a, b) => (a.wall < b.wall ? a : b));
  console.log(
    `Seed: ${seedBest.worker} in the worker; click to results on screen ${seedBest.wall.toFixed(0)} ms; longest main-thread task ${seedBest.longest ? `${seedBest.longest.toFixed(0)} ms` : "< 50 ms"}`,
  );

  // The seed transcript plus its log grown to the size asked for.
  const log = await page.getByTestId("source-text").nth(1).inputValue();
  await page.getByTestId("remove-source").nth(1).click();
  const dropped = Date.now();
  await dropFile(page, "sglang_eagle3_aqmedai.log", { log, bytes: megabytes * 1_000_000 });
  await page.getByTestId("source-large").waitFor({ timeout: 120_000 });
  console.log(`${megabytes} MB log: made and dropped in ${Date.now() - dropped} ms`);
  const big = await analyze(page);
  console.log(
    `${megabytes} MB: ${big.worker} in the worker; click to results on screen ${big.wall.toFixed(0)} ms; longest main-thread task ${big.longest ? `${big.longest.toFixed(0)} ms` : "< 50 ms"} (${big.longTasks.length} tasks over 50 ms)`,
  );
  if (big.longTasks.length) {
    console.log(
      `  long tasks: ${big.longTasks.map((t) => `${t.duration.toFixed(0)} ms at ${(t.start - big.clicked).toFixed(0)} ms from the click`).join(", ")}`,
    );
  }
  console.log(`Requests left 127.0.0.1: ${browser.offsite.length}`);
} finally {
  await browser.close();
  await site.close();
}
