// End-to-end tests of the page beyond the seed (seed.test.mjs): analysis in
// the worker with progress and cancel, inputs and settings kept across a
// reload, clear all, rules turned off and re-graded, a finding opening its
// evidence in the virtualised source viewer, keyboard use, accessible
// names, the clipboard, print and phone layouts, share links (redacted), filters
// and search, the theme toggle, and serving from a sub-path. Every test
// checks there were no console errors and no request left 127.0.0.1.
//
//   trunk build --release && (cd tests/e2e && npm test)

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { attr, dropFile, launch, open as openPage, serveDist } from "./harness.mjs";

const TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const SECRET_TRANSCRIPT = `[msg 1] assistant
$ export HF_TOKEN=${TOKEN}
$ ssh root@10.0.0.5 'nohup vllm serve /models/llama --port 8001 > /tmp/vllm.log 2>&1 &'
`;

describe("hindsight web page: app features", () => {
  let site;
  let browser;

  before(async () => {
    site = await serveDist();
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await site?.close();
  });

  const open = (options) => openPage(browser.context, site.url, options);
  const rules = (page) => attr(page, '[data-testid="finding"]', "data-rule");
  const done = async (page, errors) => {
    assert.deepEqual(errors, [], "no console errors");
    assert.deepEqual(browser.offsite, [], "no request left 127.0.0.1");
    await page.close();
  };

  test("keeps inputs and settings across a reload; clear all forgets them", async () => {
    const { page, errors } = await open();
    await page.getByTestId("clear-sources").click();
    await page.getByTestId("source-name").fill("mine.txt");
    await page.getByTestId("source-text").fill(SECRET_TRANSCRIPT);
    await page.getByTestId("analyze").click();
    await page.getByTestId("results").waitFor();
    // Saving waits for a pause in typing.
    await page.waitForTimeout(600);
    await page.reload();
    await page.getByTestId("results").waitFor();
    assert.equal(await page.getByTestId("source-name").inputValue(), "mine.txt");
    assert.equal(await page.getByTestId("source-text").inputValue(), SECRET_TRANSCRIPT);

    await page.getByTestId("clear-sources").click();
    await page.waitForTimeout(600);
    await page.reload();
    await page.getByTestId("source-editor").waitFor();
    assert.equal(await page.getByTestId("source-text").inputValue(), "", "nothing restored");
    // Nothing to analyze, so no postmortem (give a worker time to answer).
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId("results").count(), 0);
    await done(page, errors);
  });

  test("rules can be turned off and re-graded, and stay so", async () => {
    const { page, errors } = await open();
    assert.ok((await rules(page)).includes("port-unchecked"));
    await page.getByTestId("rules").locator("summary").click();
    const port = page.locator('[data-testid="rule-setting"][data-rule="port-unchecked"]');
    await port.getByTestId("rule-enabled").uncheck();
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="finding"][data-rule="port-unchecked"]'),
    );
    const ranks = page.locator('[data-testid="rule-setting"][data-rule="ranks-uncounted"]');
    await ranks.getByTestId("rule-severity").selectOption("info");
    await page
      .locator('[data-testid="finding"][data-rule="ranks-uncounted"][data-severity="info"]')
      .waitFor();
    assert.match(await page.getByTestId("rules-summary").innerText(), /1 severity changed/);

    await page.waitForTimeout(600);
    await page.reload();
    await page.getByTestId("results").waitFor();
    assert.ok(!(await rules(page)).includes("port-unchecked"), "still off after a reload");
    await page
      .locator('[data-testid="finding"][data-rule="ranks-uncounted"][data-severity="info"]')
      .waitFor();

    await page.getByTestId("rules").locator("summary").click();
    await page.getByTestId("rules-reset").click();
    await page.locator('[data-testid="finding"][data-rule="port-unchecked"]').waitFor();
    await done(page, errors);
  });

  test("a finding opens its evidence in the source viewer", async () => {
    const { page, errors } = await open();
    const finding = page.locator('[data-testid="finding"][data-rule="drafter-unconfirmed"]');
    // Its first excerpt shown unfolded (a repeat of an earlier quote is folded).
    const evidence = finding.locator('[data-testid="evidence"]:visible').first();
    const label = await evidence.locator("figcaption span").first().innerText();
    await evidence.getByTestId("jump").click();
    const marked = page.locator(".viewer-line.marked");
    await marked.first().waitFor();
    const first = Number(await marked.first().getAttribute("data-line"));
    assert.ok(label.includes(`:${first}`), `${label} starts at line ${first}`);
    // The marked line is inside the viewer's visible area.
    const inView = await page.evaluate(() => {
      const box = document.querySelector('[data-testid="viewer-scroll"]').getBoundingClientRect();
      const line = document.querySelector(".viewer-line.marked").getBoundingClientRect();
      return line.top >= box.top && line.bottom <= box.bottom;
    });
    assert.ok(inView, "the evidence is scrolled into view");
    const selected = await page.locator('[data-testid="viewer-tab"][aria-selected="true"]').innerText();
    assert.ok(label.startsWith(selected), `${label} is in ${selected}`);
    await done(page, errors);
  });

  test("keyboard, screen-reader names, clipboard, print and phone width", async () => {
    const { page, errors } = await open();
    const active = () =>
      page.evaluate(() => {
        const e = document.activeElement;
        const style = getComputedStyle(e);
        return { tag: e.tagName, id: e.id, text: e.innerText ?? "", outline: `${style.outlineStyle} ${style.outlineWidth}` };
      });

    // The first Tab reaches the skip link, which sends focus to the results.
    await page.keyboard.press("Tab");
    const skip = await active();
    assert.equal(skip.text, "Skip to the postmortem");
    assert.equal(skip.outline, "solid 2px", "the focused skip link shows its focus");
    await page.keyboard.press("Enter");
    assert.equal((await active()).id, "results-title");
    // From there Tab walks the results' controls, each with a visible ring.
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      const now = await active();
      assert.equal(now.tag, "BUTTON", `stop ${i} is a control`);
      assert.equal(now.outline, "solid 2px", `${now.text} shows its focus`);
    }
    // Enter on a focused control acts: Copy Markdown puts the postmortem on
    // the clipboard.
    await page.getByTestId("copy-markdown").focus();
    await page.keyboard.press("Enter");
    await page.getByText("The Markdown postmortem is on the clipboard.").waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, /^# /);
    for (const rule of await rules(page)) assert.ok(copied.includes(rule), `the copy mentions ${rule}`);

    // The source tabs follow the ARIA tabs pattern: one tab in the Tab
    // order, arrows and Home/End move the selection and the focus.
    const tabs = page.getByTestId("viewer-tab");
    const state = () =>
      tabs.evaluateAll((all) => all.map((t) => `${t.getAttribute("aria-selected")}/${t.tabIndex}`));
    assert.deepEqual(await state(), ["true/0", "false/-1"]);
    await tabs.first().focus();
    await page.keyboard.press("ArrowRight");
    assert.deepEqual(await state(), ["false/-1", "true/0"]);
    assert.equal((await active()).id, "viewer-tab-1");
    assert.equal(
      await page.getByTestId("viewer-scroll").getAttribute("aria-labelledby"),
      "viewer-tab-1",
    );
    await page.keyboard.press("Home");
    assert.deepEqual(await state(), ["true/0", "false/-1"]);
    assert.equal((await active()).id, "viewer-tab-0");

    // Every control has a name a screen reader reads out (Chromium's own
    // accessibility tree, as assistive technology gets it).
    const cdp = await browser.context.newCDPSession(page);
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    const controls = new Set(["button", "link", "textbox", "combobox", "checkbox", "tab", "searchbox", "radio", "switch"]);
    const named = nodes.filter((n) => !n.ignored && controls.has(n.role?.value));
    assert.ok(named.length > 30, `${named.length} controls`);
    const nameless = named.filter((n) => !(n.name?.value ?? "").trim()).map((n) => n.role.value);
    assert.deepEqual(nameless, [], "controls without an accessible name");
    await cdp.detach();

    // Printed: the postmortem alone, without inputs, controls or viewer.
    await page.emulateMedia({ media: "print" });
    const shown = (selector) => page.locator(selector).first().isVisible();
    assert.equal(await shown('[data-testid="finding"]'), true);
    assert.equal(await shown('[data-testid="checkpoint"]'), true);
    for (const hidden of ['[data-testid="source-text"]', '[data-testid="export-json"]', '[data-testid="viewer"]', ".filter-bar"]) {
      assert.equal(await shown(hidden), false, `${hidden} is not printed`);
    }
    await page.emulateMedia({ media: "screen" });

    // On a phone nothing is wider than the screen.
    await page.setViewportSize({ width: 360, height: 780 });
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > width + 1 && getComputedStyle(e).position !== "fixed")
        .filter((e) => !e.closest(".viewer-scroll, pre, .code, .lanes, .visually-hidden, .skip-link"));
      return { page: document.documentElement.scrollWidth - width, wide: wide.slice(0, 5).map((e) => e.className || e.tagName) };
    });
    assert.equal(overflow.page, 0, "no sideways scrolling");
    assert.deepEqual(overflow.wide, []);
    await page.setViewportSize({ width: 1280, height: 900 });
    await done(page, errors);
  });

  test("the viewer draws only what is in view of a million lines", async () => {
    const { page, errors } = await open();
    await page.getByTestId("clear-sources").click();
    await dropFile(page, "huge.log", { lines: 1_000_000 });
    await page.getByTestId("source-large").waitFor();
    await page.getByTestId("analyze").click();
    await page.getByTestId("results").waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId("viewer-lines").innerText(), "1000000 lines");
    const drawn = await page.locator(".viewer-line").count();
    assert.ok(drawn > 10 && drawn < 200, `${drawn} lines in the DOM`);
    // The last line is reachable.
    await page.getByTestId("viewer-scroll").evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".viewer-line")].some((l) => l.dataset.line === "1000000"),
    );
    await done(page, errors);
  });

  test("a big analysis runs in the worker, shows progress and can be cancelled", async () => {
    const { page, errors } = await open();
    const seedLog = await page.getByTestId("source-text").nth(1).inputValue();
    await page.getByTestId("clear-sources").click();
    await dropFile(page, "sglang_eagle3_aqmedai.log", { log: seedLog, bytes: 60_000_000 });
    await page.getByTestId("source-large").waitFor();
    const before = site.requests.length;
    await page.getByTestId("analyze").click();
    await page.getByTestId("progress").waitFor();
    // The page answers while the worker works.
    const started = Date.now();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    assert.ok(Date.now() - started < 1000, "a frame was drawn during the analysis");
    await page.getByTestId("cancel").click();
    await page.getByTestId("progress").waitFor({ state: "detached" });
    assert.match(await page.getByTestId("notice").innerText(), /cancelled/);

    // Again, to the end: a fresh worker takes over.
    await page.getByTestId("analyze").click();
    await page.getByTestId("results").waitFor({ timeout: 60_000 });
    assert.match(await page.getByTestId("summary").innerText(), /1 source/);
    // The text went over in several pieces (16 MiB a task): every line of it
    // arrived, in one source. `dropFile` grows the log with this line.
    const filler =
      "[2026-02-11 22:35:10 TP0] Decode batch. #running-req: 1, #token: 1234, token usage: 0.01, gen throughput (token/s): 42.00, #queue-req: 0\n";
    const fillers = Math.ceil((60_000_000 - seedLog.length) / filler.length);
    const expected = (seedLog.match(/\n/g) ?? []).length + fillers;
    const shown = await page.getByTestId("source-report").first().innerText();
    assert.equal(Number(shown.split("·")[1].replace(/[^0-9]/g, "")), expected, shown);
    // Respawning fetched only the worker script and the bindings, from here.
    const later = site.requests.slice(before);
    assert.ok(
      later.every((p) => p.endsWith("/worker.js") || p.endsWith(".js")),
      JSON.stringify(later),
    );
    await done(page, errors);
  });

  test("share links carry the inputs, redacted, and open them", async () => {
    const { page, errors } = await open();
    await page.getByTestId("clear-sources").click();
    await page.getByTestId("source-name").fill("secret.txt");
    await page.getByTestId("source-text").fill(SECRET_TRANSCRIPT);
    await page.getByTestId("analyze").click();
    await page.getByTestId("results").waitFor();
    // The viewer redacts the credential until asked to show it.
    const viewerText = () => page.getByTestId("viewer-scroll").innerText();
    assert.ok(!(await viewerText()).includes(TOKEN));
    await page.getByTestId("show-secrets").check();
    assert.ok((await viewerText()).includes(TOKEN));
    await page.getByTestId("show-secrets").uncheck();

    await page.getByTestId("share").click();
    const link = await page.getByTestId("share-link").inputValue();
    assert.match(link, /#share=[A-Za-z0-9_-]+$/);
    assert.ok(!link.includes("hf_"), "no credential in the link");
    await page.close();

    const requestsBefore = site.requests.length;
    const shared = await browser.context.newPage();
    const sharedErrors = [];
    shared.on("pageerror", (e) => sharedErrors.push(String(e)));
    shared.on("console", (m) => m.type() === "error" && sharedErrors.push(m.text()));
    await shared.goto(link);
    await shared.getByTestId("results").waitFor();
    assert.equal(await shared.getByTestId("source-name").inputValue(), "secret.txt");
    const text = await shared.getByTestId("source-text").inputValue();
    assert.ok(text.includes("[redacted]") && !text.includes(TOKEN), text);
    assert.match(await shared.getByTestId("notice").innerText(), /from the link/);
    assert.equal(new URL(shared.url()).hash, "", "the fragment is dropped once loaded");
    // The fragment never reached the server.
    assert.ok(site.requests.slice(requestsBefore).every((p) => !p.includes("share")));
    await done(shared, [...errors, ...sharedErrors]);
  });

  test("too large to share says so", async () => {
    const { page, errors } = await open();
    await page.getByTestId("clear-sources").click();
    await dropFile(page, "big.log", { lines: 200_000 });
    await page.getByTestId("source-editor").waitFor();
    await page.getByTestId("analyze").click();
    await page.getByTestId("results").waitFor();
    await page.getByTestId("share").click();
    assert.match(await page.getByTestId("results-message").innerText(), /does not fit in a link/);
    await done(page, errors);
  });

  test("filters and search narrow findings and the timeline", async () => {
    const { page, errors } = await open();
    const visible = (selector) =>
      page.locator(selector).evaluateAll((els) => els.filter((e) => !e.closest("[hidden]")).length);
    const all = await visible('[data-testid="finding"]');
    await page.getByTestId("search").fill("readiness");
    const some = await visible('[data-testid="finding"]');
    assert.ok(some >= 1 && some < all, `${some} of ${all}`);
    await page.getByTestId("search").fill("");
    assert.equal(await visible('[data-testid="finding"]'), all);

    const checkpoints = await visible('[data-testid="checkpoint"]');
    await page.locator('[data-testid="filter-kind"][data-value="verify"]').click();
    const fewer = await visible('[data-testid="checkpoint"]');
    assert.ok(fewer < checkpoints, `${fewer} of ${checkpoints}`);
    await page.locator('[data-testid="filter-severity"][data-value="error"]').click();
    assert.equal(await visible('[data-testid="finding"][data-severity="error"]'), 0);

    // The lanes: one per host and one per server, with phase bars.
    assert.equal(await page.getByTestId("lane").count(), 2);
    assert.ok((await page.getByTestId("phase-bar").count()) >= 2);
    await done(page, errors);
  });

  test("the theme toggle overrides the system's", async () => {
    const { page, errors } = await open();
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? "system");
    assert.equal(await theme(), "system");
    await page.getByTestId("theme").click();
    assert.equal(await theme(), "light");
    await page.getByTestId("theme").click();
    assert.equal(await theme(), "dark");
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, "rgb(14, 17, 22)");
    await page.getByTestId("theme").click();
    assert.equal(await theme(), "system");
    await done(page, errors);
  });

  test("works served from a sub-path", async () => {
    const nested = await serveDist({ prefix: "/tools/hindsight/" });
    try {
      // A new port is a new origin, with nothing stored yet.
      const { page, errors } = await openPage(browser.context, nested.url, { fresh: false });
      assert.ok((await rules(page)).includes("port-unchecked"));
      assert.ok(nested.requests.every((p) => p.startsWith("/tools/hindsight/")), JSON.stringify(nested.requests));
      await done(page, errors);
    } finally {
      await nested.close();
    }
  });
});
