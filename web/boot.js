// Starts the WebAssembly app. Trunk's own loader is an inline script, which
// the page's Content-Security-Policy forbids; Trunk.toml makes Trunk write the
// hashed file names into #app-loader instead, and this module loads them.
const loader = document.getElementById("app-loader");
if (loader) {
  const bindings = await import(loader.dataset.js);
  await bindings.default({ module_or_path: loader.dataset.wasm });
} else {
  console.error("hindsight: #app-loader is missing; was the page built by trunk?");
}
