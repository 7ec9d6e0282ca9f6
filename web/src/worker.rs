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
use std::sync::Arc;

use hindsight_core::Config;
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::protocol::Snapshot;
use crate::protocol::{self, Reply, Request};
use crate::wire;

/// The worker script, relative to the page (so any sub-path works).
const WORKER_SCRIPT: &str = "worker.js";
/// The message the worker's wasm posts once it listens.
const READY: &str = "ready";

/// The most bytes the page copies out of wasm memory for the worker in one
/// task. A 100 MB source copied at once held the main thread for over 60 ms;
/// in steps of this size each task stays well under the 50 ms at which the
/// page stops answering.
const STEP: usize = 16 << 20;

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
                .map(|chunks| {
                    // Each text comes in the pieces the page copied it in.
                    let chunks: Vec<Uint8Array> = match chunks.dyn_into::<Array>() {
                        Ok(chunks) => chunks.iter().map(JsCast::unchecked_into).collect(),
                        Err(one) => vec![one.unchecked_into()],
                    };
                    let length = chunks.iter().map(|c| c.length() as usize).sum();
                    let mut bytes = Vec::with_capacity(length);
                    for chunk in &chunks {
                        bytes.extend_from_slice(&chunk.to_vec());
                    }
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

/// Whether the worker listens yet, the request waiting for it, and the
/// request whose texts are being copied (a newer one or a cancel stops it).
#[derive(Default)]
struct Link {
    ready: bool,
    queued: Option<(JsValue, Array)>,
    copying: Option<u32>,
}

/// A request whose texts are copied out of wasm memory a step at a time.
struct Copying {
    id: u32,
    sources: Arc<Vec<Snapshot>>,
    /// Where the next step starts: which source, and where in its text.
    source: usize,
    offset: usize,
    message: js_sys::Object,
    /// One array of pieces per source so far; the last is `pieces`.
    texts: Array,
    pieces: Array,
    transfer: Array,
    worker: Worker,
    state: Rc<RefCell<Link>>,
    on_reply: OnReply,
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
    /// [`Analyzer::spawn`]. The texts are copied for the worker [`STEP`]
    /// bytes per task, so a big paste never holds the page.
    pub(crate) fn submit(
        &self,
        id: u32,
        config: &Config,
        sources: Arc<Vec<Snapshot>>,
        on_reply: &OnReply,
    ) {
        let header = match serde_json::to_string(&Request::new(id, config.clone(), &sources)) {
            Ok(header) => header,
            Err(e) => {
                on_reply(Err(format!("cannot encode the request: {e}")));
                return;
            }
        };
        let message = js_sys::Object::new();
        let texts = Array::new();
        let _ = Reflect::set(&message, &"header".into(), &header.into());
        let _ = Reflect::set(&message, &"texts".into(), &texts);
        self.state.borrow_mut().copying = Some(id);
        copy_step(Copying {
            id,
            sources,
            source: 0,
            offset: 0,
            message,
            texts,
            pieces: Array::new(),
            transfer: Array::new(),
            worker: self.worker.clone(),
            state: self.state.clone(),
            on_reply: on_reply.clone(),
        });
    }
}

/// Copies up to [`STEP`] bytes of the texts into buffers the worker will
/// own, then goes on in a later task, or sends the request once all are
/// copied.
fn copy_step(mut copying: Copying) {
    if copying.state.borrow().copying != Some(copying.id) {
        // Cancelled, or a newer request took its place.
        return;
    }
    let mut budget = STEP;
    while let Some(source) = copying.sources.get(copying.source) {
        let text = source.text.as_bytes();
        if copying.offset == 0 {
            copying.pieces = Array::new();
            copying.texts.push(&copying.pieces);
        }
        let end = (copying.offset + budget).min(text.len());
        let piece = Uint8Array::from(&text[copying.offset..end]);
        copying.transfer.push(&piece.buffer());
        copying.pieces.push(&piece);
        budget -= end - copying.offset;
        copying.offset = end;
        if copying.offset == text.len() {
            copying.source += 1;
            copying.offset = 0;
        }
        if budget == 0 && copying.source < copying.sources.len() {
            // The next step in a task of its own, so input and painting
            // come in between.
            gloo::timers::callback::Timeout::new(0, move || copy_step(copying)).forget();
            return;
        }
    }
    let Copying {
        message,
        transfer,
        worker,
        state,
        on_reply,
        ..
    } = copying;
    let mut link = state.borrow_mut();
    link.copying = None;
    if link.ready {
        drop(link);
        post(&worker, &message.into(), &transfer, &on_reply);
    } else {
        // A newer request replaces one still waiting for the worker.
        link.queued = Some((message.into(), transfer));
    }
}

impl Drop for Analyzer {
    /// Stops the worker mid-analysis: this is how cancel works.
    fn drop(&mut self) {
        self.state.borrow_mut().copying = None;
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
