// Hostile text in every field the page displays: the source text, the
// source name, commands, model names, log paths, hosts, a share link made
// from them and the state saved in localStorage. Vectors in the style of
// the OWASP XSS filter evasion cheat sheet. Nothing may run (no dialog, no
// marker set on window), no request may leave 127.0.0.1 (a rendered
// <img src=http://…> would), and each vector must show as text.
//
//   trunk build --release && (cd tests/e2e && npm test)

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { launch, open as openPage, serveDist } from "./harness.mjs";

const MARK = "window.__xss=(window.__xss||0)+1";
const VECTORS = [
  `<script>${MARK}</script>`,
  `<img src=x onerror="${MARK}">`,
  `<svg/onload=${MARK}>`,
  `"><script>${MARK}</script>`,
  `'><img src=x onerror=${MARK}>`,
  `<iframe src="javascript:${MARK}"></iframe>`,
  `<body onload=${MARK}>`,
  `<details open ontoggle=${MARK}>`,
  `<a href="javascript:${MARK}">x</a>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=${MARK}>`,
  `<img src="http://evil.example/leak.png">`,
  `<link rel=stylesheet href="http://evil.example/x.css">`,
  `<meta http-equiv="refresh" content="0;url=http://evil.example/">`,
  `<object data="javascript:${MARK}"></object>`,
  `{{constructor.constructor('${MARK}')()}}`,
  `javascript:${MARK}`,
  `<IMG SRC=JaVaScRiPt:alert('XSS')>`,
  `<scr<script>ipt>${MARK}</scr</script>ipt>`,
];

/** A transcript that puts each vector where the page shows it. */
function transcript() {
  const lines = [];
  VECTORS.forEach((v, i) => {
    const q = v.replaceAll("'", "");
    lines.push(`[msg ${i * 2 + 1}] assistant`);
    lines.push(`$ ssh '${q}' 'nohup vllm serve "${q}" --port ${8000 + i} > "/tmp/${q}.log" 2>&1 &'`);
    lines.push(`$ curl -s http://127.0.0.1:${8000 + i}/v1/models`);
    lines.push(`{"object":"list","data":[{"id":"${q.replaceAll('"', "")}"}]}`);
    lines.push(`[msg ${i * 2 + 2}] assistant`);
    lines.push(`The server is up: ${v}`);
  });
  return lines.join("\n") + "\n";
}

describe("hindsight web page: hostile text stays text", () => {
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

  /** Watches a page for dialogs and errors. */
  const watch = (page, dialogs, errors) => {
    page.on("dialog", async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    page.on("pageerror", (e) => errors.push(String(e)));
  };

  const assertInert = async (page, dialogs, what) => {
    assert.deepEqual(dialogs, [], `${what}: no dialog opened`);
    assert.equal(await page.evaluate(() => window.__xss), undefined, `${what}: no vector ran`);
    assert.deepEqual(browser.offsite, [], `${what}: no request left 127.0.0.1`);
    // Nothing the vectors would have made exists in the page.
    const made = await page.evaluate(
      () =>
        document.querySelectorAll(
          "iframe, object, embed, details[ontoggle], img[onerror], svg[onload], link[href^='http://evil'], meta[http-equiv=refresh]",
        ).length,
    );
    assert.equal(made, 0, `${what}: no element from the input`);
  };

  test("the source text, its name, commands, models, paths, hosts, the share link and saved state", async () => {
    const dialogs = [];
    const { page, errors } = await openPage(browser.context, site.url);
    watch(page, dialogs, errors);
    await page.getByTestId("clear-sources").click();
    const name = `<img src=x onerror="${MARK}">.txt`;
    await page.getByTestId("source-name").fill(name);
    await page.getByTestId("source-text").fill(transcript());
    await page.getByTestId("analyze").click();
    await page.getByTestId("results").waitFor();
    await page.waitForTimeout(300);
    await assertInert(page, dialogs, "results");
    const shown = await page.getByTestId("results").innerText();
    for (const v of [VECTORS[1], VECTORS[2], VECTORS[9]]) {
      assert.ok(shown.includes(v.replaceAll("'", "").replaceAll('"', "")) || shown.includes(v), `shown as text: ${v}`);
    }
    // The source viewer shows the raw lines as text too.
    const viewer = await page.getByTestId("viewer-scroll").innerText();
    assert.ok(viewer.includes("<script>"), "the viewer shows the text");

    // A share link made of it opens inert.
    await page.getByTestId("share").click();
    const link = await page.getByTestId("share-link").inputValue();
    const shared = await browser.context.newPage();
    const sharedDialogs = [];
    watch(shared, sharedDialogs, errors);
    await shared.goto(link);
    await shared.getByTestId("results").waitFor();
    await shared.waitForTimeout(300);
    await assertInert(shared, sharedDialogs, "share link");
    assert.equal(await shared.getByTestId("source-name").inputValue(), name);
    await shared.close();

    // Saved state with a vector in every string field loads inert.
    await page.evaluate((mark) => {
      const key = "hindsight.v1";
      const saved = JSON.parse(localStorage.getItem(key));
      const poison = (value) => {
        if (typeof value === "string") return `${value}<img src=x onerror="${mark}">`;
        if (Array.isArray(value)) return value.map(poison);
        if (value && typeof value === "object") {
          return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v)]));
        }
        return value;
      };
      localStorage.setItem(key, JSON.stringify(poison(saved)));
    }, MARK);
    const reloaded = await browser.context.newPage();
    const reloadedDialogs = [];
    watch(reloaded, reloadedDialogs, errors);
    await reloaded.goto(site.url);
    await reloaded.waitForTimeout(1500);
    await assertInert(reloaded, reloadedDialogs, "saved state");
    await reloaded.close();

    assert.deepEqual(errors, [], "no page errors");
    await page.close();
  });

  test("the page's Content-Security-Policy stays as strict", async () => {
    const { page } = await openPage(browser.context, site.url);
    const csp = await page.evaluate(
      () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? "",
    );
    const directives = Object.fromEntries(
      csp.split(";").map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v.join(" ")]),
    );
    assert.equal(directives["default-src"], "'self'");
    assert.equal(directives["script-src"], "'self' 'wasm-unsafe-eval'", "no inline or eval scripts");
    assert.equal(directives["object-src"], "'none'");
    assert.equal(directives["connect-src"], "'self'", "requests only to where the page came from");
    assert.equal(directives["base-uri"], "'self'");
    assert.equal(directives["form-action"], "'none'");
    assert.ok(!csp.includes("unsafe-inline"), csp);
    await page.close();
  });
});
