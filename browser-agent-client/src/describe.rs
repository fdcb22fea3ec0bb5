//! Short accessible descriptions of click targets: `button "Save"`, `link "Home"`, `textbox "Email"`,
//! falling back to `"name"`, `tag#id` or `tag` (the MindStudio client's `describeTarget`).

use wasm_bindgen::JsCast;
use web_sys::Element;

/// Elements a click is attributed to when it lands inside them.
const INTERACTIVE: &str = "button,a[href],input,select,textarea,summary,label,[role],[onclick],[tabindex]";

/// The element a click on `target` means: the nearest interactive ancestor, else the target.
pub(crate) fn click_target(target: &Element) -> Element {
    target
        .closest(INTERACTIVE)
        .ok()
        .flatten()
        .unwrap_or_else(|| target.clone())
}

fn attr(el: &Element, name: &str) -> String {
    el.get_attribute(name).unwrap_or_default()
}

/// The ARIA role of `el`, explicit or implicit (the common cases).
fn role(el: &Element, tag: &str) -> String {
    let explicit = attr(el, "role");
    if let Some(first) = explicit.split_ascii_whitespace().next() {
        return first.to_ascii_lowercase();
    }
    let r = match tag {
        "button" | "summary" => "button",
        "a" if el.has_attribute("href") => "link",
        "input" => match attr(el, "type").to_ascii_lowercase().as_str() {
            "checkbox" => "checkbox",
            "radio" => "radio",
            "button" | "submit" | "reset" | "image" => "button",
            "range" => "slider",
            "number" => "spinbutton",
            "search" => "searchbox",
            "hidden" => "",
            _ => "textbox",
        },
        "textarea" => "textbox",
        "select" => {
            if el.has_attribute("multiple") {
                "listbox"
            } else {
                "combobox"
            }
        }
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "img" => "img",
        "option" => "option",
        "li" => "listitem",
        "nav" => "navigation",
        "dialog" => "dialog",
        _ => "",
    };
    r.into()
}

/// Cuts `s` to its first `n` characters.
pub(crate) fn truncate_chars(s: &mut String, n: usize) {
    if let Some((at, _)) = s.char_indices().nth(n) {
        s.truncate(at);
    }
}

/// Collapses whitespace runs to one space and trims.
pub(crate) fn squash(s: &str) -> String {
    let mut out = String::new();
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The accessible name of `el` (simplified accname: labelledby, aria-label, labels, alt, value of
/// buttons, text content, placeholder, title).
fn name(el: &Element, tag: &str, role: &str) -> String {
    let doc = el.owner_document();
    let labelledby = attr(el, "aria-labelledby");
    if !labelledby.is_empty() {
        if let Some(doc) = &doc {
            let mut text = String::new();
            for id in labelledby.split_ascii_whitespace() {
                if let Some(t) = doc.get_element_by_id(id).and_then(|e| e.text_content()) {
                    text.push(' ');
                    text.push_str(&t);
                }
            }
            let s = squash(&text);
            if !s.is_empty() {
                return s;
            }
        }
    }
    let label = squash(&attr(el, "aria-label"));
    if !label.is_empty() {
        return label;
    }
    let form_field = matches!(tag, "input" | "select" | "textarea");
    if form_field {
        let ty = attr(el, "type").to_ascii_lowercase();
        if tag == "input" && matches!(ty.as_str(), "button" | "submit" | "reset") {
            let v = squash(&attr(el, "value"));
            if !v.is_empty() {
                return v;
            }
            return match ty.as_str() {
                "submit" => "Submit".into(),
                "reset" => "Reset".into(),
                _ => String::new(),
            };
        }
        let id = el.id();
        if let (false, Some(doc)) = (id.is_empty(), &doc) {
            if let Ok(Some(l)) = doc.query_selector(&label_selector(&id)) {
                let s = squash(&l.text_content().unwrap_or_default());
                if !s.is_empty() {
                    return s;
                }
            }
        }
        if let Ok(Some(l)) = el.closest("label") {
            let s = squash(&l.text_content().unwrap_or_default());
            if !s.is_empty() {
                return s;
            }
        }
    }
    if tag == "img" || (tag == "input" && attr(el, "type").eq_ignore_ascii_case("image")) {
        let alt = squash(&attr(el, "alt"));
        if !alt.is_empty() {
            return alt;
        }
    }
    if !form_field && role != "textbox" {
        let text = squash(&el.text_content().unwrap_or_default());
        if !text.is_empty() {
            return text;
        }
    }
    for a in ["placeholder", "title"] {
        let s = squash(&attr(el, a));
        if !s.is_empty() {
            return s;
        }
    }
    String::new()
}

/// `label[for="id"]` with the id escaped for a CSS string.
fn label_selector(id: &str) -> String {
    let mut s = String::from("label[for=\"");
    for c in id.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push_str("\"]");
    s
}

/// `role "name"`, `role`, `"name"`, `tag#id` or `tag`; names over 60 chars are cut to 57 plus `...`.
pub(crate) fn describe(el: &Element) -> String {
    let tag = el.tag_name().to_ascii_lowercase();
    let role = role(el, &tag);
    let mut name = name(el, &tag, &role);
    if name.char_indices().nth(60).is_some() {
        truncate_chars(&mut name, 57);
        name.push_str("...");
    }
    let mut out = role.clone();
    if !name.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push('"');
        out.push_str(&name);
        out.push('"');
    }
    if out.is_empty() {
        out = tag;
        let id = el.id();
        if !id.is_empty() {
            out.push('#');
            out.push_str(&id);
        }
    }
    out
}

/// The element of an event target (text nodes give their parent element).
pub(crate) fn element_of(target: &wasm_bindgen::JsValue) -> Option<Element> {
    if let Some(el) = target.dyn_ref::<Element>() {
        return Some(el.clone());
    }
    target.dyn_ref::<web_sys::Node>().and_then(|n| n.parent_element())
}
