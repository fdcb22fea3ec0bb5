//! Choices: `select` (an option of a `<select>` by text, value or label) and `check`/`uncheck`
//! (checkboxes, radio buttons, switches, and their ARIA kin).

use super::super::batch;
use super::super::resolve::{self, describe, Miss, Target};
use super::super::step::{bad_field, field, Outcome};
use super::super::target::target;
use super::keymap::{key_inits, Mods};
use super::pointer::click_target;
use super::reach::{centre, landing, scroll_into_view};
use super::text::{native_set, text_field, type_into};
use crate::cursor;
use crate::js::{
    as_element, attribute, closest, disabled, event_init, fire, get, has_attribute, js_string, now_ms, set, sleep,
};
use crate::snapshot::idle;
use crate::snapshot::name::squash;
use crate::text::{cat, ci_contains, push_number, quote};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// `select`: picks an option of a `<select>` by its text, value or label (exact before partial).
/// An ARIA combobox (a `combobox`, or a control with `aria-haspopup`) is opened with a click, and
/// its option clicked, as a person picks it; a `listbox` has its option clicked.
pub(super) async fn select(step: &JsValue) -> Outcome {
    let want = field(step, "option").or_else(|| field(step, "value")).or_else(|| {
        if field(step, "name").is_some() || field(step, "ref").is_some() {
            field(step, "text")
        } else {
            None
        }
    });
    let Some(want) = want else {
        return Err(bad_field("option"));
    };
    // `text` may name the option, so the target comes from the other fields.
    let t = target(step, true)?;
    let el = t.el.clone();
    if el.local_name() != "select" {
        return aria_select(&t, want.trim()).await;
    }
    if disabled(&el) {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    scroll_into_view(&el).await;
    batch::note(&t);
    let (x, y) = centre(&el);
    cursor::move_to(x, y).await;
    let options = get(&el, "options");
    let count = get(&options, "length").as_f64().unwrap_or(0.0) as u32;
    let mut best: Option<(u32, JsValue, String)> = None;
    let mut names = Vec::new();
    // Options that only contain the text: one is taken when no option is the text, several are
    // refused (a guess could pick "Pro yearly" for "Pro" beside "Pro monthly").
    let mut partial = 0;
    let want_t = want.trim();
    for i in 0..count {
        let o = Reflect::get_u32(&options, i).unwrap_or(JsValue::UNDEFINED);
        let text = squash(&get(&o, "text").as_string().unwrap_or_default());
        let val = get(&o, "value").as_string().unwrap_or_default();
        let label = get(&o, "label").as_string().unwrap_or_default();
        names.push(quote(&text));
        let exact =
            text.eq_ignore_ascii_case(want_t) || val.eq_ignore_ascii_case(want_t) || label.eq_ignore_ascii_case(want_t);
        let rank = if exact {
            2
        } else if ci_contains(&text, want_t) || ci_contains(&label, want_t) {
            partial += 1;
            1
        } else {
            0
        };
        if rank > 0 && best.as_ref().is_none_or(|b| rank > b.0) {
            best = Some((rank, o, text));
        }
    }
    let several = partial > 1 && best.as_ref().is_some_and(|b| b.0 == 1);
    let Some((_, option, text)) = best.filter(|_| !several) else {
        let none = if several {
            "Several options contain "
        } else {
            "No option "
        };
        let mut m = cat(&[none, &quote(want_t), " in ", &t.label, ". Options: "]);
        let more = names.len().saturating_sub(10);
        names.truncate(10);
        let shown: Vec<&str> = names.iter().map(String::as_str).collect();
        crate::text::push_joined(&mut m, &shown, ", ");
        if more > 0 {
            m.push_str(" and ");
            push_number(&mut m, more as u32);
            m.push_str(" more");
        }
        return Err(m);
    };
    if get(&option, "disabled").is_truthy() {
        return Err(cat(&["The option ", &quote(&text), " in ", &t.label, " is disabled"]));
    }
    super::focus::focus(Some(&el));
    // A multi-select keeps what was chosen before, as a person's Control+click does; setting
    // its value would leave only this option.
    if !get(&el, "multiple").is_truthy() {
        native_set(&el, "value", &get(&option, "value"));
    }
    set(&option, "selected", &JsValue::TRUE);
    fire(&el, "Event", "input", &event_init(true));
    fire(&el, "Event", "change", &event_init(true));
    Ok(js_string(&cat(&["selected ", &quote(&text)])))
}

/// How long an opened combobox may take to show its options (ms): a popup positioned, or kept
/// `visibility: hidden`, a frame or more after the click settles (Vuetify's lists).
const OPTIONS_WAIT_MS: f64 = 1_000.0;

/// `select` on an ARIA combobox or listbox: opens a combobox that is not expanded (a click), then
/// clicks the visible `option` named `want`, found as `{"role":"option","name":want}` would be.
/// An editable combobox that shows no such option (an autocomplete that lists a few) gets `want`
/// typed into it first, as a person narrows the list.
async fn aria_select(t: &Target, want: &str) -> Outcome {
    let role = resolve::role_of(&t.el);
    let popup = attribute(&t.el, "aria-haspopup").is_some_and(|v| v != "false");
    // The field an autocomplete takes its text in: the target, or the one inside a combobox that
    // wraps it (ARIA 1.1: Element Plus's autocomplete).
    let field = if text_field(&t.el) {
        Some(t.el.clone())
    } else {
        t.el.query_selector("input,textarea").ok().flatten().filter(text_field)
    };
    let field = field.filter(|f| !has_attribute(f, "readonly"));
    // A text field that suggests (`aria-autocomplete`, or inside a combobox) is one.
    let suggests = field
        .as_ref()
        .is_some_and(|f| has_attribute(f, "aria-autocomplete") || closest(f, "[role=combobox]").is_some());
    if role != "combobox" && role != "listbox" && !popup && !suggests {
        let how = if field.is_some() {
            "type the text into it, then click the suggestion"
        } else {
            "click it to open it, then click the option"
        };
        return Err(cat(&[&t.label, " is not a <select>, combobox or listbox; ", how]));
    }
    let was_open = role == "listbox" || expanded(&t.el);
    // Where this step opens the list (and closes it again on a failure): looked up only then.
    let open_on = if was_open { None } else { opener(t) };
    let open_on = open_on.as_ref().unwrap_or(t);
    // What could be picked before the list opens: what shows only after (the radios of a popover
    // or an alert, the buttons of an action sheet) is what the click opened.
    let before = if was_open { None } else { Some(resolve::choices()) };
    if !was_open {
        click_target(open_on, 1).await?;
    }
    let query = Object::new();
    set(&query, "role", &js_string("option"));
    set(&query, "name", &js_string(want));
    let mut typed = false;
    // The options may show, and stop moving, a frame or more after the click settles (a popup
    // positioned, faded or scaled in): looked for, and their click tried (it checks what the
    // pointer would hit before it fires anything), until they do. A field whose list did not
    // open on the click gets the text at once.
    let mut start = now_ms();
    let picked = loop {
        let waited = now_ms() - start > OPTIONS_WAIT_MS;
        let type_now = field.is_some() && !typed && !expanded(&t.el);
        let found = resolve::resolve(&query, false, false).or_else(|miss| match miss {
            Miss::Nothing(_) => item_named(want)
                .or_else(|| before.as_deref().and_then(|b| opened_named(b, want)))
                .ok_or(miss),
            several => Err(several),
        });
        match found {
            Err(Miss::Nothing(_)) if !waited && !type_now => {}
            Err(Miss::Nothing(_)) if field.is_some() && !typed => {
                typed = true;
                if let Some(el) = field.clone() {
                    if let Err(e) = type_into(
                        &Target {
                            label: describe(&el),
                            el,
                        },
                        want,
                        false,
                        true,
                    )
                    .await
                    {
                        break Err(e);
                    }
                }
                start = now_ms();
            }
            // The text of what is there instead (or, if it showed just now, the next round).
            Err(miss) => {
                let nothing = matches!(miss, Miss::Nothing(_));
                let opened = before
                    .as_deref()
                    .filter(|_| nothing)
                    .map(opened_choices)
                    .unwrap_or_default();
                // (A list of `option`s answers as a listbox always has, below.)
                let options = opened.iter().any(|e| resolve::role_of(e) == "option");
                if !opened.is_empty() && !options {
                    let names: Vec<String> = opened
                        .iter()
                        .map(|e| quote(&resolve::describe::name_of(e, resolve::role_of(e))))
                        .collect();
                    let mut m = cat(&["No option ", &quote(want), " in ", &t.label, ". Options: "]);
                    push_list(&mut m, names);
                    break Err(m);
                }
                if let Err(e) = target(&query, false) {
                    break Err(if typed {
                        cat(&["Typed ", &quote(want), " into ", &t.label, ": ", &e])
                    } else {
                        e
                    });
                }
            }
            Ok(option) => {
                batch::note(&option);
                let text = resolve::describe::name_of(&option.el, resolve::role_of(&option.el));
                // A click on a chosen option of a multi-select would take it out again: one marked
                // so, or one whose list was open before this step (a single select's closes on a
                // pick; Element Plus marks none).
                let multi = was_open || closest(&option.el, "[aria-multiselectable=true]").is_some();
                if multi && attribute(&option.el, "aria-selected").as_deref() == Some("true") {
                    break Ok(js_string(&cat(&["already selected ", &quote(&text)])));
                }
                match click_target(&option, 1).await {
                    Err(_) if !waited && !disabled(&option.el) => {}
                    Ok(()) => {
                        if let Some(b) = &before {
                            confirm(b, &option.el).await;
                        }
                        if !multi {
                            closed(t, &option.el).await;
                        }
                        break Ok(js_string(&cat(&["selected ", &quote(&text)])));
                    }
                    done => break done.map(|()| js_string(&cat(&["selected ", &quote(&text)]))),
                }
            }
        }
        sleep(50).await;
    };
    // A failed pick leaves the page as it found it: the list this step opened is closed with
    // Escape, as a person closes it, or with a second click where the list ignores Escape.
    let opened = before.as_deref().map(opened_choices).unwrap_or_default();
    if picked.is_err() && !was_open && (expanded(&t.el) || !opened.is_empty()) {
        let on = get(&t.el, "ownerDocument");
        let (escape, _) = key_inits("Escape", Mods::default());
        let mark = super::settle::mark();
        fire(&get(&on, "activeElement"), "KeyboardEvent", "keydown", &escape);
        let _ = super::settle::settle(mark, 0, false).await;
        let open = || expanded(&t.el) || opened.iter().any(resolve::is_visible);
        if open() {
            // An alert that ignores Escape has its own way out.
            match opened.iter().find(|e| is_word(e, CANCEL)) {
                Some(cancel) => {
                    let _ = click_target(&target_of(cancel), 1).await;
                }
                None => {
                    let _ = click_target(open_on, 1).await;
                }
            }
        }
        if let Some(first) = opened.first() {
            closed(t, first).await;
        }
    }
    picked
}

/// How long `select` waits for what it opened to close and stop moving (ms).
const CLOSE_WAIT_MS: f64 = 2_000.0;

/// Names of the button that confirms a choice in an alert-style picker (Ionic's "OK").
const CONFIRM: &[&str] = &["ok", "done", "confirm", "select", "apply", "choose", "save"];

/// Names of the button that closes an alert-style picker without a choice.
const CANCEL: &[&str] = &["cancel", "close", "dismiss"];

/// `m` plus the quoted `names`, at most 10, then how many more.
fn push_list(m: &mut String, mut names: Vec<String>) {
    let more = names.len().saturating_sub(10);
    names.truncate(10);
    let shown: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::text::push_joined(m, &shown, ", ");
    if more > 0 {
        m.push_str(" and ");
        push_number(m, more as u32);
        m.push_str(" more");
    }
}

/// `el` as a target, described as the snapshot shows it.
fn target_of(el: &Element) -> Target {
    Target {
        label: describe(el),
        el: el.clone(),
    }
}

/// Whether `el` is a button named one of `words`.
fn is_word(el: &Element, words: &[&str]) -> bool {
    resolve::role_of(el) == "button" && {
        let n = resolve::describe::name_of(el, "button").to_ascii_lowercase();
        words.contains(&n.trim())
    }
}

/// The choices that show now and did not before the list was opened (`before`).
fn opened_choices(before: &[Element]) -> Vec<Element> {
    resolve::choices().into_iter().filter(|e| !before.contains(e)).collect()
}

/// The opened choice named `want` (exactly, else the only one containing it).
fn opened_named(before: &[Element], want: &str) -> Option<Target> {
    let opened = opened_choices(before);
    let named: Vec<(Element, String)> = opened
        .into_iter()
        .map(|e| {
            let n = resolve::describe::name_of(&e, resolve::role_of(&e));
            (e, n)
        })
        .collect();
    let exact = named.iter().find(|(_, n)| n.eq_ignore_ascii_case(want));
    let hit = exact.or_else(|| {
        let mut partial = named.iter().filter(|(_, n)| ci_contains(n, want));
        let first = partial.next();
        first.filter(|_| partial.next().is_none())
    });
    hit.map(|(e, _)| target_of(e))
}

/// After a pick in an alert-style picker that stays open (Ionic's alert: radios, then "OK"):
/// clicks the button that confirms it, one the list opened.
async fn confirm(before: &[Element], picked: &Element) {
    let mark = super::settle::mark();
    let _ = super::settle::settle(mark, 0, false).await;
    if !resolve::is_visible(picked) || !matches!(resolve::role_of(picked), "radio" | "menuitemradio") {
        return;
    }
    if let Some(ok) = opened_choices(before).iter().find(|e| is_word(e, CONFIRM)) {
        let _ = click_target(&target_of(ok), 1).await;
    }
}

/// Waits (at most [`CLOSE_WAIT_MS`]) until the list `select` opened on `t` is closed (the
/// combobox is not expanded, or `inside` it is hidden or gone) and still (no animation that ends
/// is running in the page), so the next step is not covered by a list still closing.
async fn closed(t: &Target, inside: &Element) {
    let start = now_ms();
    loop {
        // (A combobox says it closed before its list has faded out: Shoelace's.)
        let shut = !expanded(&t.el) && (!inside.is_connected() || !resolve::is_visible(inside));
        if (shut && still(&[&t.el, inside])) || now_ms() - start > CLOSE_WAIT_MS {
            return;
        }
        sleep(30).await;
    }
}

/// Whether no animation that ends is running in the page, nor in the shadow trees of `near`.
fn still(near: &[&Element]) -> bool {
    !super::reach::fading(near)
}

/// Whether the combobox `el` says its list is open.
fn expanded(el: &Element) -> bool {
    attribute(el, "aria-expanded").as_deref() == Some("true")
}

/// Where a click opens the combobox `t` when not on `t` itself: where a click on `t` reaches only
/// its label (PrimeVue's MultiSelect keeps it clipped in a 1 px box), the box drawn around it (the
/// nearest `clickable` around it).
fn opener(t: &Target) -> Option<Target> {
    let on_label = landing(t).is_ok_and(|(top, _, _)| !t.el.contains(Some(&top)) && closest(&top, "label").is_some());
    if !on_label {
        return None;
    }
    let mut around = t.el.parent_element();
    while let Some(e) = around {
        if resolve::role_of(&e) == "clickable" {
            return Some(Target {
                label: describe(&e),
                el: e,
            });
        }
        around = e.parent_element();
    }
    None
}

/// A visible item without a role that takes clicks and is named `want` (antd draws a Select's
/// options so, beside a listbox for screen readers that it clips to nothing).
fn item_named(want: &str) -> Option<Target> {
    let query = Object::new();
    set(&query, "text", &js_string(want));
    resolve::resolve(&query, false, false).ok().filter(|i| {
        resolve::role_of(&i.el) == "clickable" && resolve::describe::name_of(&i.el, "").eq_ignore_ascii_case(want)
    })
}

/// Whether a checkbox, radio button or ARIA checkable is checked.
fn is_checked(el: &Element) -> bool {
    match attribute(el, "aria-checked") {
        _ if el.local_name() == "input" => get(el, "checked").is_truthy(),
        Some(v) => v == "true",
        // A component that keeps its state in `ElementInternals` (Material's md-radio), or a host
        // whose control draws the state: its `checked` property.
        None => get(el, "checked") == JsValue::TRUE,
    }
}

/// Longest `check` waits for the requests its click started before it reads the state again (ms);
/// never closer than [`SAVE_MARGIN_MS`] to the batch's deadline.
const SAVE_WAIT_MS: f64 = 5_000.0;
/// What that wait leaves of the batch's time.
const SAVE_MARGIN_MS: f64 = 500.0;

/// Whether `el`, or the element that took its place when the page redrew it, is in state `on`.
fn now_checked(el: &Element, on: bool) -> bool {
    let now = if el.is_connected() {
        Some(el.clone())
    } else {
        resolve::successor_of(el)
    };
    now.is_some_and(|el| is_checked(&el) == on)
}

/// `check` (`on`) and `uncheck`: clicks the control when its state differs, then verifies it (on
/// the element that took its place, when the page redrew it).
pub(super) async fn check(step: &JsValue, on: bool) -> Outcome {
    let mut t = target(step, false)?;
    if t.el.local_name() == "label" {
        if let Some(c) = as_element(get(&t.el, "control")) {
            t = Target {
                label: describe(&c),
                el: c,
            };
        }
    }
    let kind = get(&t.el, "type").as_string().unwrap_or_default();
    let role = resolve::role_of(&t.el);
    let checkable = kind == "checkbox"
        || kind == "radio"
        || matches!(
            role,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        );
    if !checkable {
        return Err(cat(&[&t.label, " is not a checkbox, radio button or switch"]));
    }
    if is_checked(&t.el) == on {
        batch::note(&t);
        return Ok(js_string(if on { "already checked" } else { "already unchecked" }));
    }
    if !on && (kind == "radio" || role == "radio") {
        return Err(cat(&[
            &t.label,
            " is a radio button: check another option of its group instead",
        ]));
    }
    let (inflight, t0) = (idle::inflight(), now_ms());
    click_target(&t, 1).await?;
    if !now_checked(&t.el, on) && idle::last_activity() >= t0 {
        // A page that saves first and draws the saved state when the answer comes (a list
        // redrawn from the server's copy): the box is checked once the requests the click started
        // are answered, not before.
        let max = batch::time_left().map_or(SAVE_WAIT_MS, |l| (l - SAVE_MARGIN_MS).min(SAVE_WAIT_MS));
        let _ = idle::wait_requests_done(inflight, max.max(0.0)).await;
        let _ = super::settle::settle(super::settle::mark(), 0, false).await;
    }
    if !now_checked(&t.el, on) {
        return Err(cat(&[
            "Clicked ",
            &t.label,
            " but it is still ",
            if on { "unchecked" } else { "checked" },
            " (the page reverted it)",
        ]));
    }
    Ok(js_string(if on { "checked" } else { "unchecked" }))
}
