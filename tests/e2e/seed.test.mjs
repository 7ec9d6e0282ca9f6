// End-to-end test of the built page (dist/) in Debian's Chromium.
//
//   trunk build --release && (cd tests/e2e && npm ci && npm test)
//
// Serves dist/ itself on 127.0.0.1 (no trunk serve needed), drives
// /usr/bin/chromium through playwright-core, and checks that the seed
// example is analyzed on load, that a pasted session re-analyzes, that the
// exports work, that nothing is logged as an error and that no request
// leaves 127.0.0.1 (or reaches the server at all after load). Saves the
// screenshots in docs/screenshots/.
//
// Environment: HINDSIGHT_DIST (default ../../dist), CHROMIUM (default
// /usr/bin/chromium), HINDSIGHT_SCREENSHOTS=0 to skip writing screenshots.
// The server and browser set-up is in harness.mjs; app.test.mjs covers the
// rest of the page (worker, persistence, rules, viewer, sharing, filters).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { attr, launch, open as openPage, root, screenshots, serveDist } from "./harness.mjs";

const saveScreenshots = process.env.HINDSIGHT_SCREENSHOTS !== "0";

const SEED_RULES = ["port-unchecked", "drafter-unconfirmed", "ranks-uncounted"];
const DRAFTER = "/data/eagle3/aq-medai-k2-drafter";

// A session where the agent launched a server and then checked its port.
const SMALL_TRANSCRIPT = `[msg 1] assistant
Launching vLLM on the box.

$ ssh root@10.0.0.5 'nohup vllm serve /models/llama --port 8001 > /tmp/vllm.log 2>&1 &'

[msg 2] assistant
$ ssh root@10.0.0.5 'ss -ltnp | grep :8001'
LISTEN 0      2048         0.0.0.0:8001      0.0.0.0:*    users:(("python3",pid=4242,fd=27))
`;

/** Asserts that every one of `wanted` is in `list`. */
function assertIncludes(list, wanted) {
  for (const item of wanted) assert.ok(list.includes(item), `${item} missing from ${JSON.stringify(list)}`);
}

describe("hindsight web page", () => {
  let site;
  let browser;
  let offsite;

  before(async () => {
    site = await serveDist();
    browser = await launch();
    offsite = browser.offsite;
    if (saveScreenshots) await mkdir(screenshots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await site?.close();
  });

  const open = () => openPage(browser.context, site.url);

  test("analyzes the seed example on load", async () => {
    const { page, errors } = await open();

    // Both seed sources are in the editors.
    const names = await page
      .locator('[data-testid="source-name"]')
      .evaluateAll((els) => els.map((e) => e.value));
    assert.deepEqual(names, ["transcript.txt", "sglang_eagle3_aqmedai.log"]);

    // The three findings the seed is known for (the core may find more).
    const shown = await attr(page, '[data-testid="finding"]', "data-rule");
    assertIncludes(shown, SEED_RULES);
    assert.match(await page.getByTestId("summary").innerText(), new RegExp(`^${shown.length} findings `));
    for (const rule of SEED_RULES) {
      const finding = page.locator(`[data-testid="finding"][data-rule="${rule}"]`);
      assert.ok((await finding.getByTestId("evidence").count()) >= 1, `${rule} shows evidence`);
      assert.match(await finding.getByTestId("suggestion").innerText(), /ssh root@10\.1\.230\.174/);
    }

    // Checkpoints: build, kill, launch, verify, in that order.
    const kinds = await attr(page, '[data-testid="checkpoint"]', "data-kind");
    const runs = kinds.filter((kind, i) => kind !== kinds[i - 1]);
    assert.deepEqual(runs, ["build", "kill", "launch", "verify"]);

    // The server card.
    const servers = page.getByTestId("server");
    assert.equal(await servers.count(), 1);
    const card = servers.first();
    assert.equal(await card.locator(".engine").innerText(), "sglang");
    assert.equal(await card.locator('[data-field="tp"] dd').innerText(), "tp 8");
    assert.match(await card.locator('[data-field="drafter"] dd').innerText(), new RegExp(DRAFTER));
    assert.equal(await card.locator('[data-field="port"] dd').innerText(), "8000");
    assert.equal(await card.locator('[data-field="ranks"] dd').innerText(), "8 of 8");
    // Its verification ledger: the agent checked none of it.
    const ledger = await card.getByTestId("ledger-entry").evaluateAll((entries) =>
      entries.map((e) => `${e.dataset.check} ${e.dataset.status}`),
    );
    assert.deepEqual(ledger, [
      "port-listening not-checked",
      "request-answered not-checked",
      "readiness-line not-checked",
      "drafter-loaded not-checked",
      "all-ranks-up not-checked",
      "errors-scanned not-checked",
    ]);

    // Builds and kills carry their own checks: the seed's kills were
    // followed by nvidia-smi showing the GPUs free; its first build failed.
    const kills = page.locator('[data-testid="checkpoint"][data-kind="kill"]');
    assert.equal(await kills.count(), 2);
    for (const kill of await kills.all()) {
      assert.deepEqual(
        await kill.getByTestId("ledger-entry").evaluateAll((entries) =>
          entries.map((e) => `${e.dataset.check} ${e.dataset.status}`),
        ),
        ["gpus-freed passed"],
      );
    }
    const builds = page.locator('[data-testid="checkpoint"][data-kind="build"]');
    assert.equal(
      await builds.nth(1).locator('[data-check="build-succeeded"]').getAttribute("data-status"),
      "failed",
    );

    // A rule's documentation unfolds.
    const doc = page.locator('[data-rule="port-unchecked"] [data-testid="rule-doc"]');
    assert.equal(await doc.getByText("Why it matters").isVisible(), false);
    await doc.locator("summary").click();
    assert.equal(await doc.getByText("Why it matters").isVisible(), true);
    await doc.locator("summary").click();

    // Exports: the downloads hold the same report.
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("export-json").click(),
    ]);
    assert.equal(json.suggestedFilename(), "hindsight-report.json");
    const report = JSON.parse(await readFile(await json.path(), "utf8"));
    assert.deepEqual(
      report.findings.map((f) => f.rule),
      shown,
    );
    const [markdown] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("export-markdown").click(),
    ]);
    assert.equal(markdown.suggestedFilename(), "hindsight-report.md");
    const text = await readFile(await markdown.path(), "utf8");
    for (const rule of SEED_RULES) assert.ok(text.includes(rule), `markdown mentions ${rule}`);

    if (saveScreenshots) {
      await page.emulateMedia({ colorScheme: "light" });
      await page.screenshot({ path: path.join(screenshots, "light.png"), fullPage: true });
      await page.emulateMedia({ colorScheme: "dark" });
      await page.screenshot({ path: path.join(screenshots, "dark.png"), fullPage: true });
      // On a phone the inputs come first; show the postmortem as one reads it.
      await page.emulateMedia({ colorScheme: "light" });
      await page.setViewportSize({ width: 390, height: 844 });
      const top = await page.getByTestId("results").evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
      await page.screenshot({
        path: path.join(screenshots, "phone.png"),
        fullPage: true,
        clip: { x: 0, y: Math.max(0, top - 12), width: 390, height: 1800 },
      });
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    assert.deepEqual(errors, [], "no console errors");
    assert.deepEqual(offsite, [], "no request left 127.0.0.1");
    await page.close();
  });

  test("re-analyzes a pasted session, without any request", async () => {
    const { page, errors } = await open();
    const requestsAtLoad = site.requests.length;
    const before = await page.getByTestId("summary").innerText();

    // "Clear all" empties the inputs and the results.
    await page.getByTestId("clear-sources").click();
    assert.equal(await page.getByTestId("source-editor").count(), 1);
    assert.equal(await page.getByTestId("results").count(), 0);
    await page.getByTestId("source-text").fill(SMALL_TRANSCRIPT);
    await page.getByTestId("source-format").selectOption("pasted-text");
    await page.getByTestId("analyze").click();

    const summary = page.getByTestId("summary");
    await page.waitForFunction(
      (old) => document.querySelector('[data-testid="summary"]')?.textContent !== old,
      before,
    );
    assert.equal(
      await summary.innerText(),
      "0 findings · 2 checkpoints · 1 server · 1 source",
    );
    assert.equal(await page.getByTestId("stale").count(), 0, "results match the inputs again");
    assert.equal(await page.getByTestId("finding").count(), 0);
    await page.getByTestId("no-findings").waitFor();
    assert.deepEqual(await attr(page, '[data-testid="checkpoint"]', "data-kind"), ["launch", "verify"]);
    const card = page.getByTestId("server");
    assert.equal(await card.locator(".engine").innerText(), "vllm");
    assert.equal(await card.locator('[data-field="port"] dd').innerText(), "8001");
    assert.equal(
      await card.locator('[data-check="port-listening"]').getAttribute("data-status"),
      "passed",
    );
    assert.match(await page.getByTestId("source-report").innerText(), /pasted-text \(chosen\)/);

    // Editing again and removing the source leaves nothing to analyze.
    await page.getByTestId("remove-source").click();
    await page.getByTestId("analyze").click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="summary"]')?.textContent?.includes("0 sources"),
    );

    assert.deepEqual(site.requests.slice(requestsAtLoad), [], "no request after load");
    assert.deepEqual(errors, [], "no console errors");
    assert.deepEqual(offsite, [], "no request left 127.0.0.1");
    await page.close();
  });

  test("a failed last test run is no all-clear, though no rule fires", async () => {
    const { page, errors } = await open();
    await page.getByTestId("clear-sources").click();
    await page.getByTestId("source-text").fill(
      "$ npm test\n  12 passing (5s)\n  1 failing\n\n" +
        "Assistant: The integration tests are in place.\n",
    );
    await page.getByTestId("source-format").selectOption("pasted-text");
    await page.getByTestId("analyze").click();
    const verdict = page.getByTestId("no-findings");
    await verdict.waitFor();
    assert.equal(await verdict.getAttribute("data-verdict"), "unresolved");
    assert.match(await verdict.getAttribute("class"), /warn/);
    assert.match(await verdict.innerText(), /last run of `npm test` failed at .*:3 \(`1 failing`\)/);
    const check = page.locator('[data-testid="checkpoint"] [data-check="run-succeeded"]');
    assert.equal(await check.getAttribute("data-status"), "failed");
    assert.deepEqual(errors, [], "no console errors");
    await page.close();
  });

  test("adds picked and dropped files as sources", async () => {
    const { page, errors } = await open();
    await page.getByTestId("clear-sources").click();
    const seed = path.join(root, "examples", "seed-sglang-eagle3");
    await page.getByTestId("file-input").setInputFiles([
      path.join(seed, "transcript.txt"),
      path.join(seed, "sglang_eagle3_aqmedai.log"),
    ]);
    // The empty editor left by "clear" takes the first file.
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="source-editor"]').length === 2,
    );
    const names = await page
      .locator('[data-testid="source-name"]')
      .evaluateAll((els) => els.map((e) => e.value));
    assert.deepEqual(names, ["transcript.txt", "sglang_eagle3_aqmedai.log"]);
    await page.getByTestId("source-text").nth(1).press("Control+Enter");
    await page.getByTestId("results").waitFor();
    await page.getByTestId("stale").waitFor({ state: "detached" });
    assertIncludes(await attr(page, '[data-testid="finding"]', "data-rule"), SEED_RULES);

    // A file dropped on the input panel becomes a source too.
    const drop = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(["[msg 1] assistant\n$ nvidia-smi\n"], "dropped.txt", { type: "text/plain" }));
      return data;
    });
    await page.locator(".inputs").dispatchEvent("drop", { dataTransfer: drop });
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="source-editor"]').length === 3,
    );
    assert.equal(await page.getByTestId("source-name").nth(2).inputValue(), "dropped.txt");
    assert.deepEqual(errors, [], "no console errors");
    assert.deepEqual(offsite, [], "no request left 127.0.0.1");
    await page.close();
  });
});
