//! Reaching a target with the pointer: the init of its events at a point, scrolling the target
//! into view, and where a press at its centre lands (or what covers it).

use super::super::overlays::FADE_WAIT_MS;
use super::super::resolve::{self, describe, Target};
use crate::cursor;
use crate::js::{
    as_element, call, closest, event_init, get, global, js_number, js_string, now_ms, object, set, sleep, window_of,
};
use crate::text::{cat, num};
use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Longest scroll settle (ms).
const SETTLE_MAX_MS: f64 = 1_000.0;

/// The `pointerId` of the agent's pointer events: a mouse's, the pointer Chromium keeps active (so
/// a page's `setPointerCapture` with it succeeds: [`super::capture`]).
pub(super) const POINTER_ID: f64 = 1.0;

/// The init of a pointer or mouse event at `(x, y)` for the primary mouse button.
pub(super) fn mouse(x: f64, y: f64, buttons: u32, detail: u32, bubbles: bool) -> Object {
    mouse_button(x, y, 0, buttons, detail, bubbles)
}

/// The init of a pointer or mouse event at `(x, y)` whose `button` is `button` (0 the main
/// button, 1 the middle, 2 the right; -1 a pointer's move, which changes no button) while
/// `buttons` (bits: 1 main, 2 right, 4 middle) are held. (Chromium's pointer events carry
/// `detail` 0; its mouse events and clicks, the click count.)
pub(super) fn mouse_button(x: f64, y: f64, button: i32, buttons: u32, detail: u32, bubbles: bool) -> Object {
    let o = event_init(bubbles);
    for (k, v) in [
        ("clientX", x),
        ("clientY", y),
        ("screenX", x),
        ("screenY", y),
        ("button", f64::from(button)),
        ("buttons", f64::from(buttons)),
        ("detail", f64::from(detail)),
        ("pointerId", POINTER_ID),
        ("width", 1.0),
        ("height", 1.0),
        ("pressure", if buttons > 0 { 0.5 } else { 0.0 }),
    ] {
        set(&o, k, &js_number(v));
    }
    set(&o, "pointerType", &js_string("mouse"));
    set(&o, "isPrimary", &JsValue::TRUE);
    o
}

/// `el`'s box in viewport coordinates: `(x, y, width, height)`.
pub(super) fn rect(el: &Element) -> (f64, f64, f64, f64) {
    let r = el.get_bounding_client_rect();
    (r.x(), r.y(), r.width(), r.height())
}

/// Whether `el` is wholly inside its window's viewport.
fn in_viewport(el: &Element) -> bool {
    let (x, y, w, h) = rect(el);
    // The element's own window: a frame's elements measure against the frame's viewport.
    let g = window_of(el);
    let vw = get(&g, "innerWidth").as_f64().unwrap_or(0.0);
    let vh = get(&g, "innerHeight").as_f64().unwrap_or(0.0);
    x >= 0.0 && y >= 0.0 && x + w <= vw && y + h <= vh
}

/// Scrolls `el` to the middle of its scroll containers unless it is fully visible, and waits until
/// it stops moving.
pub(super) async fn scroll_into_view(el: &Element) {
    if in_viewport(el) {
        return;
    }
    let behavior = if cursor::enabled() { "smooth" } else { "instant" };
    let opts = object(&[
        ("block", js_string("center")),
        ("inline", js_string("nearest")),
        ("behavior", js_string(behavior)),
    ]);
    let _ = call(el, "scrollIntoView", &[&opts]);
    let start = now_ms();
    let mut last = rect(el);
    let mut still = 0;
    while now_ms() - start < SETTLE_MAX_MS && still < 2 {
        sleep(if cursor::enabled() { 30 } else { 0 }).await;
        let r = rect(el);
        if (r.0 - last.0).abs() < 0.5 && (r.1 - last.1).abs() < 0.5 {
            still += 1;
        } else {
            still = 0;
        }
        last = r;
    }
}

/// The centre of `el`'s box.
pub(super) fn centre(el: &Element) -> (f64, f64) {
    let (x, y, w, h) = rect(el);
    (x + w / 2.0, y + h / 2.0)
}

/// The element at a point in `el`'s document or shadow root.
pub(super) fn hit(el: &Element, x: f64, y: f64) -> Option<Element> {
    let root = el.get_root_node();
    let root: JsValue = if get(&root, "elementFromPoint").is_function() {
        root.into()
    } else {
        get(&global(), "document")
    };
    // The client's own elements (the notes overlay) are never what a press lands on.
    let hits: js_sys::Array = call(&root, "elementsFromPoint", &[&js_number(x), &js_number(y)])
        .ok()?
        .dyn_into()
        .ok()?;
    hits.iter()
        .filter_map(as_element)
        .find(|e| closest(e, browser_agent_protocol::UI_SELECTOR).is_none())
}

/// Whether an animation that ends is running in the page's document, in the shadow roots of
/// `near` or in the trees they are in (a list or dialog fading in or out; a spinner's endless
/// animation is not one). `Document.getAnimations()` leaves shadow trees out.
pub(super) fn fading(near: &[&Element]) -> bool {
    let mut roots: Vec<JsValue> = vec![get(&global(), "document")];
    for e in near {
        for r in [e.get_root_node().into(), get(e, "shadowRoot")] {
            if r.is_object() && !roots.contains(&r) {
                roots.push(r);
            }
        }
    }
    roots.iter().any(finite_running)
}

/// Waits (at most [`FADE_WAIT_MS`]) while an animation that ends runs in a shadow tree around
/// `el` in the flat tree (the document's own are left to the page: a carousel's may never rest).
pub(super) async fn components_still(el: &Element) {
    let mut hosts: Vec<Element> = Vec::new();
    let mut cur = Some(el.clone());
    while let Some(e) = cur {
        let root = e.get_root_node();
        if root.node_type() == web_sys::Node::DOCUMENT_FRAGMENT_NODE {
            if let Some(h) = as_element(get(&root, "host")) {
                if !hosts.contains(&h) {
                    hosts.push(h);
                }
            }
        }
        cur = if let Some(slot) = e.assigned_slot() {
            Some(slot.into())
        } else {
            e.parent_element().or_else(|| as_element(get(&root, "host")))
        };
    }
    if hosts.is_empty() {
        return;
    }
    let start = now_ms();
    while now_ms() - start < FADE_WAIT_MS && shadows_fading(&hosts) {
        sleep(30).await;
    }
}

/// Whether an animation that ends runs in the shadow root of one of `hosts`.
fn shadows_fading(hosts: &[Element]) -> bool {
    hosts.iter().any(|h| {
        let root = get(h, "shadowRoot");
        root.is_object() && finite_running(&root)
    })
}

/// Whether an animation that ends runs in `root` (a document or shadow root).
fn finite_running(root: &JsValue) -> bool {
    !crate::js::ending_animations(root).is_empty()
}

/// [`landing_at`] `point` (in the viewport; `None`: the target's centre), waiting while what
/// covers the target is fading (a web component's dialog or list closing: Shoelace's overlay
/// fades out after its panel is gone).
pub(super) async fn landing_when_still_at(
    t: &Target,
    point: Option<(f64, f64)>,
) -> Result<(Element, f64, f64), String> {
    let start = now_ms();
    loop {
        match landing_at(t, point) {
            Ok(l) => return Ok(l),
            Err(e) => {
                let (x, y) = point.unwrap_or_else(|| centre(&t.el));
                let top = hit(&t.el, x, y);
                let moving = top.as_ref().is_some_and(|top| fading(&[top, &deepest(top, x, y)]));
                if !moving || now_ms() - start > FADE_WAIT_MS {
                    return Err(e);
                }
                sleep(30).await;
            }
        }
    }
}

/// The element at a point inside `top`'s shadow trees, as deep as they go.
pub(super) fn deepest(top: &Element, x: f64, y: f64) -> Element {
    let mut cur = top.clone();
    for _ in 0..32 {
        let root = get(&cur, "shadowRoot");
        if !root.is_object() {
            break;
        }
        let inner = call(&root, "elementFromPoint", &[&js_number(x), &js_number(y)])
            .ok()
            .and_then(as_element);
        match inner {
            Some(e) if e != cur => cur = e,
            _ => break,
        }
    }
    cur
}

/// Where a pointer action lands: the element at the target's centre when it is the target or
/// inside it (or the target's `<label>`). Otherwise an error naming what covers it.
pub(super) fn landing(t: &Target) -> Result<(Element, f64, f64), String> {
    landing_at(t, None)
}

/// The point `(x, y)` px from the top-left corner of `t`'s box (either missing: its centre's), in
/// the viewport; `None` when neither is given; an error naming the box's size when the point is
/// outside it (a canvas or a map clicked where the agent meant, or not at all).
pub(super) fn point_in(t: &Target, x: Option<f64>, y: Option<f64>) -> Result<Option<(f64, f64)>, String> {
    if x.is_none() && y.is_none() {
        return Ok(None);
    }
    let (left, top, w, h) = rect(&t.el);
    for (name, v, size) in [("x ", x, w), ("y ", y, h)] {
        if v.is_some_and(|v| v < 0.0 || v >= size) {
            return Err(cat(&[
                &t.label,
                " is ",
                &num(w),
                " × ",
                &num(h),
                " px: ",
                name,
                &num(v.unwrap_or_default()),
                " is outside its box (x from 0 to ",
                &num(w),
                ", y from 0 to ",
                &num(h),
                ", from its top-left corner)",
            ]));
        }
    }
    Ok(Some((left + x.unwrap_or(w / 2.0), top + y.unwrap_or(h / 2.0))))
}

/// Where a pointer action at `point` (in the viewport; `None`: the centre) lands, as [`landing`].
pub(super) fn landing_at(t: &Target, point: Option<(f64, f64)>) -> Result<(Element, f64, f64), String> {
    let el = &t.el;
    let (x, y) = point.unwrap_or_else(|| centre(el));
    let Some(top) = hit(el, x, y) else {
        return Err(cat(&[
            &t.label,
            " is outside the visible area even after scrolling (at ",
            &num(x),
            ", ",
            &num(y),
            ")",
        ]));
    };
    // Inside the target, or the target's own ancestor where the target lets clicks through
    // (`pointer-events:none`, as Vuetify draws its select's input): where a person's click lands.
    // (An ancestor hit over a control that is only clipped away, jQuery UI's checkbox, is no
    // click on it: its label below is.)
    let through = || {
        crate::snapshot::style::page_window()
            .computed_style(el, None)
            .is_ok_and(|s| s.pointer_events() == "none")
    };
    if el.contains(Some(&top)) || (top.contains(Some(el)) && through()) {
        return Ok((top, x, y));
    }
    // The hit as far down as shadow trees go: a click there reaches the target drawn or slotted
    // inside a component (Material's select options, in a menu in another shadow root).
    // And the component's own host, where nothing inside it takes the pointer there (Ionic's
    // segment button lets clicks through its inner `<button>` to the host, which handles them).
    let deep = deepest(&top, x, y);
    let flat_contains = crate::snapshot::modal::flat_contains;
    let host_of_target = || get(&top, "shadowRoot").is_object() && !top.contains(Some(el)) && flat_contains(&top, el);
    if flat_contains(el, &deep) || (deep == top && host_of_target()) {
        return Ok((top, x, y));
    }
    let label_of_target = closest(&top, "label").is_some_and(|l| get(&l, "control") == JsValue::from(el.clone()));
    if label_of_target {
        return Ok((top, x, y));
    }
    // A control drawn as its label (Bootstrap's `.btn-check` radios, clipped away under a
    // neighbour's label): its own label is what a person clicks (not at a point the agent chose).
    if let Some(label) = as_element(get(&get(el, "labels"), "0")).filter(|_| point.is_none()) {
        let (x, y) = centre(&label);
        if let Some(top) = hit(&label, x, y).filter(|top| label.contains(Some(top))) {
            return Ok((top, x, y));
        }
    }
    // What covers it: the outermost ancestor of the hit element that does not contain the target.
    let mut cover = top.clone();
    while let Some(p) = cover.parent_element() {
        if p.contains(Some(el)) {
            break;
        }
        cover = p;
    }
    let mut m = cat(&[&t.label, " is covered by ", &describe_cover(&top, &cover)]);
    let buttons: Vec<String> = cover
        .query_selector_all("button, a[href], [role=button]")
        .ok()
        .map(|l| {
            (0..l.length())
                .filter_map(|i| l.item(i))
                .map(|n| n.unchecked_into::<Element>())
                .filter(|b| resolve::hidden_reason(b).is_none())
                .take(3)
                .map(|b| describe(&b))
                .collect()
        })
        .unwrap_or_default();
    if !overlays(&top, &cover) {
        // A sidebar or a cell the layout put over the target: nothing to close, and a person
        // could not click there either.
        let win = crate::snapshot::style::page_window();
        m.push_str("; it would get the click: the page's layout puts it over the target at this viewport (");
        m.push_str(&num(get(&win, "innerWidth").as_f64().unwrap_or(0.0)));
        m.push('×');
        m.push_str(&num(get(&win, "innerHeight").as_f64().unwrap_or(0.0)));
        m.push(')');
    } else if buttons.is_empty() {
        m.push_str("; it would get the click. Close or remove it first");
    } else {
        m.push_str("; it would get the click. Close it first, e.g. with ");
        let buttons: Vec<&str> = buttons.iter().map(String::as_str).collect();
        crate::text::push_joined(&mut m, &buttons, " or ");
    }
    Err(m)
}

/// Whether what covers a target lies over the page (a dialog, a popup, a banner, a toast: fixed,
/// sticky or absolutely placed, from the element hit up to the cover) rather than in its flow.
fn overlays(top: &Element, cover: &Element) -> bool {
    let win = crate::snapshot::style::page_window();
    let mut at = Some(top.clone());
    while let Some(el) = at {
        let role = el.get_attribute("role").unwrap_or_default();
        if el.local_name() == "dialog" || role == "dialog" || role == "alertdialog" {
            return true;
        }
        let position = win
            .computed_style(&el, None)
            .ok()
            .and_then(|s| get(&s, "position").as_string())
            .unwrap_or_default();
        if matches!(position.as_str(), "fixed" | "sticky" | "absolute") {
            return true;
        }
        if &el == cover {
            break;
        }
        at = el.parent_element();
    }
    false
}

/// What covers a target: the covering element, with the element hit inside it when that says more.
fn describe_cover(top: &Element, cover: &Element) -> String {
    let mut d = resolve::short(cover);
    if top != cover {
        let inner = describe(top);
        if !inner.starts_with(top.local_name().as_str()) || inner != d {
            d.push_str(" (");
            d.push_str(&inner);
            d.push(')');
        }
    }
    d
}

/// The viewport point a step's `x` and `y` name in `t` (`None`: its centre).
pub(super) fn step_point(step: &JsValue, t: &Target) -> Result<Option<(f64, f64)>, String> {
    let px = |name: &str| crate::js::get(step, name).as_f64();
    point_in(t, px("x"), px("y"))
}
