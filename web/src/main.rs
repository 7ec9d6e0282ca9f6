//! hindsight's postmortem page: paste an agent transcript and server logs,
//! see what the agent verified and what it only assumed.
//!
//! A Leptos client-side app built by Trunk. All analysis runs in the browser
//! through [`hindsight_core::analyze_with`], in a Web Worker ([`worker`]) so
//! the page never freezes; the page makes no request after load.
//! Logic lives in the plain modules of the `hindsight_web` library
//! (`web/src/lib.rs`: model, present, protocol, saved, share, wire) and in
//! [`viewer`], with native tests; the component modules
//! ([`app`], [`editor`], [`results`], [`settings`]) only wire signals to
//! views, and [`browser`] and [`worker`] hold the browser APIs used directly.
//!
//! The same wasm runs in the page and in the worker: `main` mounts the page
//! when there is a `window`, and otherwise serves analysis requests.

#![forbid(unsafe_code)]

// The library's modules under the names the components use.
use hindsight_web::{model, present, protocol, saved, seed, share, wire};

mod app;
mod browser;
mod editor;
mod results;
mod settings;
mod state;
// Component tests need a DOM, so they exist only in the browser build
// (`wasm-pack test web`); native `cargo test` runs the plain modules' tests.
#[cfg(all(test, target_arch = "wasm32"))]
mod tests;
mod viewer;
mod worker;

fn main() {
    console_error_panic_hook::set_once();
    if worker::in_page() {
        leptos::mount::mount_to_body(app::App);
    } else {
        worker::serve();
    }
}
