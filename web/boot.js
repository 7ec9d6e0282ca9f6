// Starts the WebAssembly app. Trunk's own loader is an inline script, which
// the page's Content-Security-Policy forbids; Trunk.toml makes Trunk write the
// hashed file names into #app-loader instead, and this module loads them.
//
// The wasm is compiled once here and the compiled module kept in
// `hindsightBoot`, so the analysis worker (web/worker.js) instantiates the
// same module without downloading or compiling it again.
const loader = document.getElementById("app-loader");
if (loader) {
  const js = new URL(loader.dataset.js, document.baseURI).href;
  const wasm = new URL(loader.dataset.wasm, document.baseURI).href;
  const bindings = await import(js);
  const response = fetch(wasm);
  let module;
  try {
    module = await WebAssembly.compileStreaming(response);
  } catch {
    // A server that does not label .wasm as application/wasm.
    module = await WebAssembly.compile(await (await fetch(wasm)).arrayBuffer());
  }
  globalThis.hindsightBoot = { module, js };
  await bindings.default({ module_or_path: module });
} else {
  console.error("hindsight: #app-loader is missing; was the page built by trunk?");
}
