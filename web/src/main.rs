//! hindsight's postmortem page: paste an agent transcript and server logs,
//! see what the agent verified and what it only assumed.
//!
//! A Leptos client-side app built by Trunk. All analysis runs in the browser
//! through [`hindsight_core::analyze`]; the page makes no request after load.
//! Logic lives in plain modules ([`model`], [`present`]) with native tests;
//! the component modules ([`app`], [`editor`], [`results`]) only wire signals
//! to views, and [`browser`] holds the few browser APIs used directly.

mod app;
mod browser;
mod editor;
mod model;
mod present;
mod results;
mod seed;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
