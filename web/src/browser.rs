//! The few browser APIs the page needs beyond rendering: saving a file through
//! a Blob and an object URL, reading picked files, the clipboard,
//! `localStorage`, the URL fragment and the theme attribute. All of it stays
//! on the machine; nothing here makes a network request.

use std::cell::RefCell;

use gloo::file::{Blob, ObjectUrl};
use gloo::storage::{LocalStorage, Storage};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// The object URL of the last export. It is revoked when replaced by the
    /// next one rather than right after the click, which could cancel a
    /// download the browser has not started yet.
    static LAST_EXPORT: RefCell<Option<ObjectUrl>> = const { RefCell::new(None) };
}

/// Offers `content` as a download named `file_name`.
pub(crate) fn download(file_name: &str, mime: &str, content: &str) -> Result<(), String> {
    let url = ObjectUrl::from(Blob::new_with_options(content, Some(mime)));
    let document = gloo::utils::document();
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| "not an anchor element".to_owned())?;
    anchor.set_href(&url);
    anchor.set_download(file_name);
    anchor.click();
    LAST_EXPORT.with(|last| last.replace(Some(url)));
    Ok(())
}

/// The bytes of a picked file.
pub(crate) async fn read_bytes(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(describe)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

// `CompressionStream`, which web-sys has only behind its unstable-API cfg.
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    type CompressionStream;

    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, wasm_bindgen::JsValue>;

    #[wasm_bindgen(method, getter)]
    fn readable(this: &CompressionStream) -> web_sys::ReadableStream;

    #[wasm_bindgen(method, getter)]
    fn writable(this: &CompressionStream) -> web_sys::WritableStream;
}

/// `bytes` deflated (raw, RFC 1951) by the browser's `CompressionStream`:
/// through a `Response` body, the simplest way to feed and drain a stream.
pub(crate) async fn deflate_raw(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let compressor = CompressionStream::new("deflate-raw").map_err(describe)?;
    let mut input = bytes.to_vec();
    let body = web_sys::Response::new_with_opt_u8_array(Some(&mut input))
        .map_err(describe)?
        .body()
        .ok_or("no body to compress")?;
    let pair = web_sys::ReadableWritablePair::new(&compressor.readable(), &compressor.writable());
    let output = web_sys::Response::new_with_opt_readable_stream(Some(&body.pipe_through(&pair)))
        .map_err(describe)?;
    let buffer = JsFuture::from(output.array_buffer().map_err(describe)?)
        .await
        .map_err(describe)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Copies text to the clipboard.
pub(crate) async fn copy(text: &str) -> Result<(), String> {
    let clipboard = gloo::utils::window().navigator().clipboard();
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(describe)
}

/// Whether the page may use `localStorage` at all. gloo-storage takes it
/// for granted and throws where it is missing (storage turned off, a
/// sandboxed frame), which would stop the page, so every use asks first.
fn storage_available() -> bool {
    matches!(gloo::utils::window().local_storage(), Ok(Some(_)))
}

/// The text stored under `key`, if any and readable. Decoding is the
/// caller's (for saved state, [`crate::saved::Saved::parse`], which the fuzz
/// target `saved_state` runs on arbitrary text).
pub(crate) fn load_text(key: &str) -> Option<String> {
    if !storage_available() {
        return None;
    }
    LocalStorage::raw().get_item(key).ok().flatten()
}

/// Stores `value` as JSON under `key`; the error says why not (quota,
/// storage turned off).
pub(crate) fn store<T: serde::Serialize>(key: &str, value: &T) -> Result<(), String> {
    if !storage_available() {
        return Err("this browser keeps no local storage".to_owned());
    }
    LocalStorage::set(key, value).map_err(|e| e.to_string())
}

/// Forgets what is stored under `key`.
pub(crate) fn forget(key: &str) {
    if storage_available() {
        LocalStorage::delete(key);
    }
}

/// The page's URL fragment, with its `#` (empty when there is none).
pub(crate) fn fragment() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// The page's URL with `fragment` in place of its own.
pub(crate) fn url_with_fragment(fragment: &str) -> String {
    let href = gloo::utils::window().location().href().unwrap_or_default();
    let base = href.split_once('#').map_or(href.as_str(), |(base, _)| base);
    format!("{base}{fragment}")
}

/// Drops the fragment from the address bar without reloading or adding a
/// history entry, so a reload does not load a shared link over later edits.
pub(crate) fn clear_fragment() {
    let window = gloo::utils::window();
    if let Ok(history) = window.history() {
        let url = url_with_fragment("");
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// Sets `data-theme` on the root element (`system` removes it).
pub(crate) fn set_theme(theme: &str) {
    if let Some(root) = gloo::utils::document().document_element() {
        let _ = if theme == "system" {
            root.remove_attribute("data-theme")
        } else {
            root.set_attribute("data-theme", theme)
        };
    }
}

/// A JavaScript error as text.
fn describe(error: wasm_bindgen::JsValue) -> String {
    error
        .as_string()
        .or_else(|| {
            error
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{error:?}"))
}
