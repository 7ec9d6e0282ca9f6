// The npm package as a consumer sees it (run by scripts/test.sh):
//
//   wasm-pack build --dev --target nodejs --out-dir DIR crates/hindsight-wasm
//   node crates/hindsight-wasm/tests/npm-package.mjs DIR
//
// Checks that the TypeScript declarations type the API (no `any`, no
// `undefined` where the report has `null`) and that the package, loaded in
// Node, gives exactly the CLI's golden report for the seed example.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(process.argv[2] ?? "");
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const seed = join(repo, "examples/seed-sglang-eagle3");

// --- the declarations -------------------------------------------------------
const dts = readFileSync(join(pkg, "hindsight_wasm.d.ts"), "utf8");
for (const line of [
  "export function analyze(sources: SourceInput[], config?: Config): Report;",
  "export interface Config {",
  "export function rules(): RuleDoc[];",
  "export function version(): string;",
  "export interface Report {",
  "export interface SourceInput {",
  "format?: string | null;",
  "export interface RuleDoc {",
  "export interface FindingReport {",
  'export type Severity = "info" | "warning" | "error";',
  // Closed sets are typed, not bare strings (issue 15).
  'export type DiagnosticLevel = "info" | "warning" | "error";',
  'export type RanBy = "agent" | "sub-agent" | "human";',
  'export type FailureKind = "cuda-oom" | "nccl-error" | "address-in-use" | "engine-died" | "exception" | "child-failed" | "killed";',
  "    kind: FailureKind;",
  "    check: Check;",
  "    host: string | null;",
]) {
  assert.ok(dts.includes(line), `hindsight_wasm.d.ts lacks: ${line}`);
}
assert.ok(!/:\s*any\b/.test(dts.split("export function version")[0]), "an `any` in the API declarations");
assert.ok(!dts.includes("| undefined"), "a field typed `| undefined`, but the report uses null");

// --- the package in Node ----------------------------------------------------
const require = createRequire(import.meta.url);
const hindsight = require(join(pkg, "hindsight_wasm.js"));
const golden = JSON.parse(readFileSync(join(seed, "report.json"), "utf8"));
const sources = golden.sources.map(({ name }) => ({
  name,
  text: readFileSync(join(seed, name), "utf8"),
}));
assert.deepStrictEqual(hindsight.analyze(sources), golden, "the seed example's report");

// A configuration drops rules and changes severities, as hindsight.toml does.
const configured = hindsight.analyze(sources, {
  ignore: ["port-unchecked"],
  severity: { "ranks-uncounted": "info" },
});
assert.ok(!configured.findings.some((f) => f.rule === "port-unchecked"), "ignored rule ran");
assert.deepStrictEqual(
  configured.findings.filter((f) => f.rule === "ranks-uncounted").map((f) => f.severity),
  ["info"],
);
assert.deepStrictEqual(hindsight.analyze(sources, null), golden, "null config is the default");
assert.throws(
  () => hindsight.analyze(sources, { ignore: ["port-uncheked"] }),
  (error) => error instanceof Error && /unknown rule `port-uncheked`/.test(error.message),
);

assert.throws(
  () => hindsight.analyze([{ name: "a.log", text: "", format: "nope" }]),
  (error) => error instanceof Error && /unknown format `nope`/.test(error.message),
);
const rules = hindsight.rules();
for (const id of ["port-unchecked", "drafter-unconfirmed", "ranks-uncounted"]) {
  assert.ok(rules.some((rule) => rule.id === id), `rules() lacks ${id}`);
}
for (const rule of rules) {
  for (const field of ["id", "title", "severity", "why", "example", "check"]) {
    assert.equal(typeof rule[field], "string", `${rule.id}.${field}`);
  }
}
const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
assert.equal(hindsight.version(), version);

console.log(`npm package ok: ${pkg} (typed .d.ts; seed report equals report.json in Node)`);
