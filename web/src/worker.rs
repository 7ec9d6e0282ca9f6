//! Analysis off the main thread: both ends of the Web Worker.
//!
//! One wasm binary serves both: `web/boot.js` compiles it once and keeps the
//! compiled module; [`Analyzer::spawn`] starts `worker.js` (a module worker)
//! and posts it that module and the bindings' URL; the worker instantiates
//! the same wasm, whose `main` sees no `window` and calls [`serve`]. A second
//! wasm for the worker would double the download, and recompiling on every
//! respawn would cost a fetch after load; this way a cancel (terminate and
//! respawn) fetches nothing but the tiny worker script, from the same origin.
//!
//! The texts go over as transferred byte buffers and the reply comes back as
//! one too, in a compact binary form ([`crate::wire`]). When no worker can be started (no boot info,
//! as in `wasm-bindgen-test`, or an old browser) the page analyzes on the
//! main thread through the same [`protocol::run`].

use std::cell::RefCell;
use std::rc::Rc;

use hindsight_core::Config;
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::model::Snapshot;
use crate::protocol::{self, Reply, Request};
use crate::wire;

/// The worker script, relative to the page (so any sub-path works).
const WORKER_SCRIPT: &str = "worker.js";
/// The message the worker's wasm posts once it listens.
const READY: &str = "ready";

/// The worker side: answer every request until terminated.
pub(crate) fn serve() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        match answer(&event.data()) {
            Ok(bytes) => {
                // The buffer is transferred, not copied.
                let bytes = Uint8Array::from(bytes.as_slice());
                let transfer = Array::of1(&bytes.buffer());
                // Posting only fails for uncloneable values; bytes never are.
                let _ = replies.post_message_with_transfer(&bytes, &transfer);
            }
            Err(message) => {
                let error = js_sys::Object::new();
                let _ = Reflect::set(&error, &"error".into(), &message.into());
                let _ = replies.post_message(&error);
            }
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as its handler; there is nothing to drop it for.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(READY));
}

/// One request: `{header, texts}` in, the [`Reply`] encoded ([`wire`]) out.
fn answer(data: &JsValue) -> Result<Vec<u8>, String> {
    let header = Reflect::get(data, &"header".into())
        .ok()
        .and_then(|h| h.as_string())
        .ok_or("request without a header")?;
    let request: Request =
        serde_json::from_str(&header).map_err(|e| format!("bad request header: {e}"))?;
    let texts: Vec<String> = Reflect::get(data, &"texts".into())
        .ok()
        .and_then(|t| t.dyn_into::<Array>().ok())
        .map(|array| {
            array
                .iter()
                .map(|bytes| {
                    let bytes = bytes.unchecked_into::<Uint8Array>().to_vec();
                    // The page sent a Rust `String`'s bytes, so this is valid
                    // UTF-8; lossy decoding only guards against a bad sender.
                    String::from_utf8(bytes)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    let started = js_sys::Date::now();
    let (id, config, sources) = request.into_sources(texts);
    let mut reply = protocol::run(id, &config, &sources);
    reply.millis = js_sys::Date::now() - started;
    wire::to_vec(&reply).map_err(|e| format!("cannot encode the report: {e}"))
}

/// What the page hears back about a request.
pub(crate) type OnReply = Rc<dyn Fn(Result<Reply, String>)>;

/// The page's side: one worker, respawned on cancel.
pub(crate) struct Analyzer {
    worker: Worker,
    state: Rc<RefCell<Link>>,
    // Kept alive as long as the worker; dropped with it.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

/// Whether the worker listens yet, and the request waiting for it.
#[derive(Default)]
struct Link {
    ready: bool,
    queued: Option<(JsValue, Array)>,
}

impl Analyzer {
    /// Starts a worker, or `None` when the page was not booted by
    /// `web/boot.js` or the browser refuses module workers.
    pub(crate) fn spawn(on_reply: OnReply) -> Option<Self> {
        let boot = Reflect::get(&js_sys::global(), &"hindsightBoot".into()).ok()?;
        if boot.is_undefined() || boot.is_null() {
            return None;
        }
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        options.set_name("hindsight-analysis");
        let worker = Worker::new_with_options(WORKER_SCRIPT, &options).ok()?;
        let state = Rc::new(RefCell::new(Link::default()));

        let link = state.clone();
        let target = worker.clone();
        let replies = on_reply.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            if data.as_string().as_deref() == Some(READY) {
                let queued = {
                    let mut link = link.borrow_mut();
                    link.ready = true;
                    link.queued.take()
                };
                if let Some((message, transfer)) = queued {
                    post(&target, &message, &transfer, &replies);
                }
                return;
            }
            if let Some(bytes) = data.dyn_ref::<Uint8Array>() {
                let bytes = bytes.to_vec();
                replies(wire::from_slice(&bytes).map_err(|e| format!("bad reply: {e}")));
            } else {
                let message = Reflect::get(&data, &"error".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "the analysis worker failed".to_owned());
                replies(Err(message));
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));

        let on_error =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                event.prevent_default();
                on_reply(Err(format!(
                    "the analysis worker stopped: {}",
                    event.message()
                )));
            });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

        let init = js_sys::Object::new();
        for key in ["module", "js"] {
            let value = Reflect::get(&boot, &key.into()).ok()?;
            Reflect::set(&init, &key.into(), &value).ok()?;
        }
        worker.post_message(&init).ok()?;
        Some(Self {
            worker,
            state,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Sends one analysis; the reply comes through the `on_reply` given to
    /// [`Analyzer::spawn`].
    pub(crate) fn submit(
        &self,
        id: u32,
        config: &Config,
        sources: &[Snapshot],
        on_reply: &OnReply,
    ) {
        let header = match serde_json::to_string(&Request::new(id, config.clone(), sources)) {
            Ok(header) => header,
            Err(e) => {
                on_reply(Err(format!("cannot encode the request: {e}")));
                return;
            }
        };
        let texts = Array::new();
        let transfer = Array::new();
        for source in sources {
            // One copy out of wasm memory into a buffer the worker then owns.
            let bytes = Uint8Array::from(source.text.as_bytes());
            transfer.push(&bytes.buffer());
            texts.push(&bytes);
        }
        let message = js_sys::Object::new();
        let _ = Reflect::set(&message, &"header".into(), &header.into());
        let _ = Reflect::set(&message, &"texts".into(), &texts);
        let mut link = self.state.borrow_mut();
        if link.ready {
            drop(link);
            post(&self.worker, &message.into(), &transfer, on_reply);
        } else {
            // A newer request replaces one still waiting for the worker.
            link.queued = Some((message.into(), transfer));
        }
    }
}

impl Drop for Analyzer {
    /// Stops the worker mid-analysis: this is how cancel works.
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

fn post(worker: &Worker, message: &JsValue, transfer: &Array, on_reply: &OnReply) {
    if let Err(error) = worker.post_message_with_transfer(message, transfer) {
        on_reply(Err(format!(
            "cannot reach the analysis worker: {}",
            error.as_string().unwrap_or_default()
        )));
    }
}

/// Whether this instance runs in a page (rather than in the worker).
pub(crate) fn in_page() -> bool {
    js_sys::global().dyn_into::<web_sys::Window>().is_ok()
}
