// hindsight's analysis worker. The page posts one message first: the wasm
// module it already compiled and the URL of its JavaScript bindings. This
// script imports the bindings and instantiates that same module; the wasm's
// start function sees it runs in a worker, replaces this onmessage handler
// with its own and posts "ready". Nothing is fetched but the bindings.
self.onmessage = async (event) => {
  self.onmessage = null;
  const { module, js } = event.data;
  try {
    const bindings = await import(js);
    await bindings.default({ module_or_path: module });
  } catch (error) {
    self.postMessage({ error: `the analysis worker could not start: ${error}` });
  }
};
