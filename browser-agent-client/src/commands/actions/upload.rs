//! `upload`: files into an `<input type=file>` or dropped onto a drop zone, as a person's choice
//! in the file picker or a drop from the desktop gives them to the page.
//!
//! The host has read the files (`protocol::upload`): each comes as `{name, type, size,
//! lastModified, data}` (`data` base64), and becomes a real `File` in a `DataTransfer`. Where the
//! files go, by the target:
//! - a file input, its `<label>`, or an element holding exactly one file input: that input gets
//!   them (`input.files`, then `input` and `change`, bubbling and composed), after the checks a
//!   picker makes (`multiple`, `accept`); the picker itself never opens;
//! - a button or link: it is clicked, as a person opens the picker, and the file input the click
//!   opens (`input.click()`, `showPicker()`, a label's or an overlaid input's click, connected to
//!   the page or not) gets them; its picker is kept shut;
//! - anything else, or any target with `"drop": true`: `dragenter`, `dragover` and (when the page
//!   cancelled the `dragover`, as a drop zone does) `drop` at its centre, each carrying the files.

use super::super::batch;
use super::super::resolve::{describe, is_visible, role_of, Target};
use super::super::step::Outcome;
use super::super::target::target;
use super::pointer::click_target;
use super::reach::{landing, mouse, scroll_into_view};
use super::settle;
use crate::cursor;
use crate::js::{attribute, call, disabled, function_proxy, get, js_string, matches, object, set, window_of};
use crate::text::{cat, num, quote};
use js_sys::{Array, Function, Reflect, Uint8Array};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The file inputs' selector.
const FILE_INPUT: &str = "input[type=file]";

/// `{"command":"upload", <target>, "files":[…], "drop"?}`.
pub(super) async fn upload(step: &JsValue) -> Outcome {
    let t = match target(step, false) {
        Ok(t) => t,
        // A file input is often hidden behind its styled button (no box, no ref): one named by a
        // selector or by its label's text is still the input a person's choice fills.
        Err(e) => hidden_input(step).ok_or(e)?,
    };
    let files = get(step, browser_agent_protocol::upload::FILES);
    let win = window_of(&t.el);
    let list = make_files(&win, &files)?;
    if get(step, browser_agent_protocol::upload::DROP).is_truthy() {
        return drop_onto(&t, &win, &list).await;
    }
    if let Some(input) = input_of(&t.el)? {
        return into_input(&t, &input, &win, &list).await;
    }
    let role = role_of(&t.el);
    if role == "button" || role == "link" {
        return match opened_by_click(&t, &win).await? {
            Some(input) => into_input(&t, &input, &win, &list).await,
            None => Err(cat(&[
                "Clicking ",
                &t.label,
                " opened no file chooser; target the drop zone or the file input (a hidden one by \"selector\")",
            ])),
        };
    }
    drop_onto(&t, &win, &list).await
}

/// The file input the target stands for: itself, the control of a `<label>`, or the one file
/// input it holds (several are an error naming them).
fn input_of(el: &Element) -> Result<Option<Element>, String> {
    if matches(el, FILE_INPUT) {
        return Ok(Some(el.clone()));
    }
    if el.local_name() == "label" {
        let control = get(el, "control");
        if let Some(c) = control.dyn_ref::<Element>().filter(|c| matches(c, FILE_INPUT)) {
            return Ok(Some(c.clone()));
        }
    }
    let inside = el.query_selector_all(FILE_INPUT).map_err(|_| String::new())?;
    match inside.length() {
        0 => Ok(None),
        1 => Ok(inside.item(0).map(JsCast::unchecked_into)),
        n => {
            let mut m = cat(&[&describe(el), " holds ", &num(f64::from(n)), " file inputs: "]);
            for i in 0..n.min(10) {
                if let Some(e) = inside.item(i) {
                    if i > 0 {
                        m.push_str(", ");
                    }
                    m.push_str(&describe(e.unchecked_ref()));
                }
            }
            m.push_str("; target one of them");
            Err(m)
        }
    }
}

/// A hidden file input the step names: by `selector`, or by the text of a `<label>` of it.
fn hidden_input(step: &JsValue) -> Option<Target> {
    let doc = web_sys::window()?.document()?;
    let found = if let Some(sel) = super::super::step::field(step, "selector") {
        let list = doc.query_selector_all(&sel).ok()?;
        (0..list.length())
            .filter_map(|i| list.item(i))
            .map(JsCast::unchecked_into::<Element>)
            .find(|e| matches(e, FILE_INPUT))
    } else {
        let want = super::super::step::field(step, "label").or_else(|| super::super::step::field(step, "text"))?;
        let labels = doc.query_selector_all("label").ok()?;
        (0..labels.length())
            .filter_map(|i| labels.item(i))
            .map(JsCast::unchecked_into::<Element>)
            .filter(is_visible)
            .filter(|l| {
                let text = crate::snapshot::name::squash(&l.text_content().unwrap_or_default());
                crate::text::ci_contains(&text, want.trim())
            })
            .find_map(|l| {
                get(&l, "control")
                    .dyn_into::<Element>()
                    .ok()
                    .filter(|c| matches(c, FILE_INPUT))
            })
    }?;
    let label = describe(&found);
    Some(Target { el: found, label })
}

/// The step's files as `File`s of `win` (name, type, bytes, `lastModified`).
fn make_files(win: &JsValue, files: &JsValue) -> Result<Vec<JsValue>, String> {
    let files: &Array = files
        .dyn_ref()
        .ok_or_else(|| String::from("invalid or missing \"files\""))?;
    let ctor: Function = get(win, "File")
        .dyn_into()
        .map_err(|_| String::from("this page has no File constructor"))?;
    let mut out = Vec::with_capacity(files.length() as usize);
    for f in files.iter() {
        let data = get(&f, "data").as_string().unwrap_or_default();
        let bytes =
            browser_agent_protocol::base64::decode(&data).ok_or_else(|| String::from("a file's data is not base64"))?;
        let parts = Array::of1(&Uint8Array::from(bytes.as_slice()));
        let options = object(&[("type", get(&f, "type")), ("lastModified", get(&f, "lastModified"))]);
        let file =
            Reflect::construct(&ctor, &Array::of3(&parts, &get(&f, "name"), &options)).map_err(crate::lazy::message)?;
        out.push(file);
    }
    Ok(out)
}

/// A `DataTransfer` of `win` holding `files`.
fn transfer(win: &JsValue, files: &[JsValue]) -> Result<JsValue, String> {
    let ctor: Function = get(win, "DataTransfer")
        .dyn_into()
        .map_err(|_| String::from("this page has no DataTransfer constructor"))?;
    let dt = Reflect::construct(&ctor, &Array::new()).map_err(crate::lazy::message)?;
    let items = get(&dt, "items");
    for f in files {
        call(&items, "add", &[f]).map_err(crate::lazy::message)?;
    }
    Ok(dt)
}

/// `"a.png" (4 bytes), "b.txt" (5 bytes)`: what the page got.
fn listed(files: &[JsValue]) -> String {
    let mut m = String::new();
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            m.push_str(", ");
        }
        let size = get(f, "size").as_f64().unwrap_or(0.0);
        m.push_str(&cat(&[
            &quote(&get(f, "name").as_string().unwrap_or_default()),
            " (",
            &num(size),
            if size == 1.0 { " byte)" } else { " bytes)" },
        ]));
    }
    m
}

/// Whether a file named `name` of type `mime` matches an `accept` list (`.png`, `image/*`,
/// `text/plain`, comma-separated, in any case); an empty list takes any.
fn accepts(accept: &str, name: &str, mime: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let mime = mime.to_ascii_lowercase();
    let mut any = false;
    for token in accept.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        any = true;
        let token = token.to_ascii_lowercase();
        let ok = if token.starts_with('.') {
            name.ends_with(&token)
        } else if let Some(major) = token.strip_suffix("/*") {
            mime.len() > major.len() && mime.starts_with(major) && mime.as_bytes()[major.len()] == b'/'
        } else {
            mime == token
        };
        if ok {
            return true;
        }
    }
    !any
}

/// Gives `files` to the file input `input` (which `t` names) as a person's choice does: after the
/// picker's own rules (one file without `multiple`; each matching `accept`), `input.files`, then
/// `input` and `change`.
async fn into_input(t: &Target, input: &Element, win: &JsValue, files: &[JsValue]) -> Outcome {
    let label = if *input == t.el {
        t.label.clone()
    } else {
        cat(&["the file input ", &describe(input), " of ", &t.label])
    };
    if disabled(input) {
        return Err(cat(&[&label, " is disabled"]));
    }
    if files.len() > 1 && !get(input, "multiple").is_truthy() {
        return Err(cat(&[
            &label,
            " takes one file (it has no \"multiple\"), and ",
            &num(files.len() as f64),
            " were given: ",
            &listed(files),
            "; upload one",
        ]));
    }
    let accept = attribute(input, "accept").unwrap_or_default();
    for f in files {
        let name = get(f, "name").as_string().unwrap_or_default();
        let mime = get(f, "type").as_string().unwrap_or_default();
        if !accepts(&accept, &name, &mime) {
            return Err(cat(&[
                &quote(&name),
                " (",
                if mime.is_empty() { "no type" } else { &mime },
                ") does not match accept=",
                &quote(&accept),
                " of ",
                &label,
                ": a person's file picker would not offer it; send a file it accepts, or its \"type\"",
            ]));
        }
    }
    // A person sees what they chose on the control they used (the input itself when it shows).
    let shown = if is_visible(input) { input } else { &t.el };
    if is_visible(shown) {
        scroll_into_view(shown).await;
        let r = shown.get_bounding_client_rect();
        cursor::move_to(r.x() + r.width() / 2.0, r.y() + r.height() / 2.0).await;
    }
    batch::note(&Target {
        el: shown.clone(),
        label: t.label.clone(),
    });
    let dt = transfer(win, files)?;
    let mark = settle::mark();
    set(input, "files", &get(&dt, "files"));
    let got = get(&get(input, "files"), "length").as_f64().unwrap_or(0.0);
    if got != files.len() as f64 {
        return Err(cat(&[
            &label,
            " did not take the files (its files list stayed at ",
            &num(got),
            ")",
        ]));
    }
    // As the browser fires them after a choice: `input` (composed), then `change`; neither cancelable.
    let init = object(&[("bubbles", JsValue::TRUE), ("composed", JsValue::TRUE)]);
    crate::js::fire(input, "Event", "input", &init);
    crate::js::fire(input, "Event", "change", &object(&[("bubbles", JsValue::TRUE)]));
    let _ = settle::settle(mark, 0, false).await;
    Ok(js_string(&cat(&["uploaded ", &listed(files), " into ", &label])))
}

/// Clicks `t` as a person opens a file picker with it, keeping any picker shut: the file input
/// the click opened, if any (by `input.click()` or `showPicker()` on any input of `win`'s, or a
/// click that reached a file input: a label's, an input laid over the button).
async fn opened_by_click(t: &Target, win: &JsValue) -> Result<Option<Element>, String> {
    let opened: Rc<RefCell<Option<Element>>> = Rc::new(RefCell::new(None));
    let proto = get(&get(win, "HTMLInputElement"), "prototype");
    // `proxy.apply` gets the input as its `this` argument: a file input's is kept, not opened;
    // any other input's call goes on.
    let seen = opened.clone();
    let trap = Closure::<dyn FnMut(JsValue, JsValue, JsValue) -> JsValue>::new(
        move |f: JsValue, this: JsValue, args: JsValue| {
            if get(&this, "type").as_string().as_deref() == Some("file") {
                *seen.borrow_mut() = Some(this.unchecked_into());
                return JsValue::UNDEFINED;
            }
            match (f.dyn_ref::<Function>(), args.dyn_ref::<Array>()) {
                (Some(f), Some(a)) => Reflect::apply(f, &this, a).unwrap_or(JsValue::UNDEFINED),
                _ => JsValue::UNDEFINED,
            }
        },
    );
    let handler = object(&[("apply", trap.as_ref().clone())]);
    let mut originals = Vec::new();
    for method in ["click", "showPicker"] {
        let original = get(&proto, method);
        if let Some(proxy) = function_proxy(win, &original, &handler) {
            set(&proto, method, &proxy);
            originals.push((method, original));
        }
    }
    let seen = opened.clone();
    let on_click = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let path = call(&ev, "composedPath", &[]).unwrap_or_default();
        let first = Reflect::get_u32(&path, 0).unwrap_or_default();
        if get(&first, "type").as_string().as_deref() == Some("file") && get(&first, "nodeType").as_f64() == Some(1.0) {
            let _ = call(&ev, "preventDefault", &[]);
            *seen.borrow_mut() = Some(first.unchecked_into());
        }
    });
    let capture = object(&[("capture", JsValue::TRUE)]);
    let _ = call(
        win,
        "addEventListener",
        &[&js_string("click"), on_click.as_ref(), &capture],
    );
    let clicked = click_target(t, 1).await;
    let _ = call(
        win,
        "removeEventListener",
        &[&js_string("click"), on_click.as_ref(), &capture],
    );
    for (method, original) in originals {
        set(&proto, method, &original);
    }
    clicked?;
    let got = opened.borrow_mut().take();
    Ok(got)
}

/// Drops `files` onto `t` as a person's drop from the desktop: `dragenter` and `dragover` at its
/// centre, then `drop` when the page cancelled the `dragover` (a drop zone does), else
/// `dragleave` and an error.
async fn drop_onto(t: &Target, win: &JsValue, files: &[JsValue]) -> Outcome {
    scroll_into_view(&t.el).await;
    batch::note(t);
    let (at, x, y) = landing(t)?;
    cursor::move_to(x, y).await;
    let dt = transfer(win, files)?;
    // A drag from the desktop allows any effect; a page reads it to pick its `dropEffect`.
    set(&dt, "effectAllowed", &js_string("all"));
    let init = || {
        let o = mouse(x, y, 0, 0, true);
        set(&o, "dataTransfer", &dt);
        o
    };
    let mark = settle::mark();
    let fire = |ty: &str| crate::js::fire(&at, "DragEvent", ty, &init());
    fire("dragenter");
    let accepted = !fire("dragover");
    if !accepted {
        fire("dragleave");
        let _ = settle::settle(mark, 0, false).await;
        return Err(cat(&[
            &t.label,
            " is no drop zone: its dragover was not cancelled (a page cancels it where it takes a drop); target the drop zone, or the file input",
        ]));
    }
    let taken = !fire("drop");
    let _ = settle::settle(mark, 0, false).await;
    let mut m = cat(&["dropped ", &listed(files), " onto ", &t.label]);
    if !taken {
        m.push_str("; the page did not cancel the drop (a browser would then open the file itself)");
    }
    Ok(js_string(&m))
}

#[cfg(test)]
mod tests {
    use super::accepts;

    #[test]
    fn accept_lists_match_as_pickers_do() {
        assert!(accepts("", "a.txt", "text/plain"));
        assert!(accepts(".png, .JPG", "Cat.jpg", "image/jpeg"));
        assert!(accepts("image/*", "x", "image/png"));
        assert!(!accepts("image/*", "x.png", "imagery/png"));
        assert!(accepts("text/csv,image/*", "a.csv", "text/csv"));
        assert!(!accepts(".png,image/jpeg", "b.txt", "text/plain"));
    }
}
