//! wasm-bindgen API of hindsight (skeleton; being filled in).
