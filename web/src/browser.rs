//! The few browser APIs the page needs beyond rendering: saving a file through
//! a Blob and an object URL, reading picked files, and the clipboard. All of
//! it stays on the machine; nothing here makes a network request.

use std::cell::RefCell;

use gloo::file::{Blob, ObjectUrl};
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

/// Copies text to the clipboard.
pub(crate) async fn copy(text: &str) -> Result<(), String> {
    let clipboard = gloo::utils::window().navigator().clipboard();
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(describe)
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
