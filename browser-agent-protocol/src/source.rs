//! Source locations (`"source": true` on a step): which component renders an element and at
//! which file and line, in development builds of React, Vue, Svelte, Preact and Angular. One
//! home for how they read: a snapshot ends with a legend that names each location once, with the
//! refs it renders; an acting step's answer names its target's.
//!
//! ```
//! use browser_agent_protocol::source::{legend, location};
//! let item = location("TodoItem", "src/TodoItem.jsx", 5);
//! assert_eq!(item, "TodoItem src/TodoItem.jsx:5");
//! let app = location("App", "src/App.jsx", 21);
//! let found = [("e1", Some(app.as_str())), ("e2", Some(item.as_str())), ("e3", Some(item.as_str())), ("e4", None)];
//! assert_eq!(
//!     legend(&found, None),
//!     "sources:\nApp src/App.jsx:21: e1\nTodoItem src/TodoItem.jsx:5: e2 e3\nno source: e4"
//! );
//! assert_eq!(legend(&[], Some("React production build")), "sources: none (React production build)");
//! ```

/// The step field that asks for source locations (every step takes it: a snapshot then ends with
/// the legend, an acting step's answer names its target's location).
pub const FIELD: &str = "source";

/// The legend's first line (alone, or followed by ` none (why)`); a snapshot's tree ends before it.
pub const HEADING: &str = "sources:";

/// A location as the legend and the answers write it: `Component file:line`; without a line
/// (Vue keeps only the file) `Component file`; without a file, the component alone.
///
/// ```
/// use browser_agent_protocol::source::location;
/// assert_eq!(location("TodoItem", "src/TodoItem.vue", 0), "TodoItem src/TodoItem.vue");
/// assert_eq!(location("AppComponent", "", 0), "AppComponent");
/// assert_eq!(location("", "src/App.svelte", 3), "src/App.svelte:3");
/// ```
pub fn location(component: &str, file: &str, line: u32) -> String {
    let mut out = String::from(component);
    if !file.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(file);
        if line > 0 {
            out.push(':');
            out.push_str(&line.to_string());
        }
    }
    out
}

/// The legend a snapshot with `source` ends with: [`HEADING`], then each location once, in the
/// order its first ref appears, with its refs (`TodoItem src/TodoItem.jsx:5: e2 e3`), then the
/// refs no framework placed (`no source: e4`). `none`: why nothing at all was found, said once
/// on the heading's line (`sources: none (no development build of a known framework)`).
///
/// `found`: each ref'd element's ref and its [`location`] text, if any.
///
/// ```
/// use browser_agent_protocol::source::legend;
/// assert_eq!(legend(&[("e1", None)], Some("no framework")), "sources: none (no framework)");
/// ```
pub fn legend(found: &[(&str, Option<&str>)], none: Option<&str>) -> String {
    let mut out = String::from(HEADING);
    if found.iter().all(|(_, at)| at.is_none()) {
        out.push_str(" none (");
        out.push_str(none.unwrap_or("no element with a ref"));
        out.push(')');
        return out;
    }
    // Locations in order of first appearance, each with its refs (few distinct locations: a
    // linear search keeps the wasm small).
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    for &(reference, at) in found {
        match at {
            Some(at) => match groups.iter_mut().find(|(g, _)| *g == at) {
                Some((_, refs)) => refs.push(reference),
                None => groups.push((at, vec![reference])),
            },
            None => missing.push(reference),
        }
    }
    for (at, refs) in groups {
        out.push('\n');
        out.push_str(at);
        out.push(':');
        for r in refs {
            out.push(' ');
            out.push_str(r);
        }
    }
    if !missing.is_empty() {
        out.push_str("\nno source:");
        for r in missing {
            out.push(' ');
            out.push_str(r);
        }
    }
    out
}

/// Why no location was found, said once per answer: `kind` is the frameworks the page's elements
/// belong to (`React`, empty when none), `dev` whether any keeps locations.
///
/// ```
/// use browser_agent_protocol::source::why_none;
/// assert_eq!(why_none("React", false), "React production build: no source locations");
/// assert_eq!(why_none("", false), "no development build of React, Vue, Svelte, Preact or Angular: no source locations");
/// assert_eq!(why_none("Vue", true), "Vue names no component here");
/// ```
pub fn why_none(kind: &str, dev: bool) -> String {
    match (kind.is_empty(), dev) {
        (true, _) => "no development build of React, Vue, Svelte, Preact or Angular: no source locations".to_owned(),
        (false, false) => [kind, " production build: no source locations"].concat(),
        (false, true) => [kind, " names no component here"].concat(),
    }
}
