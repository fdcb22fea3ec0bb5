//! Keys do what the browser does, in real headless Chromium: each key is pressed once as a person
//! presses it (chromedriver's key actions, which Chromium receives as trusted input and acts on)
//! and once through the agent's `press` step (synthetic events, whose default the client does),
//! on the same control of the same page, from the same state; what the page saw (its controls'
//! values, the caret, the focus, and its event log) must be the same, and must be what the
//! scenario expects (so a key that did nothing either way fails too). With `preventDefault` on the
//! keydown, neither does anything.
//!
//! Fixture: `fixtures/keys/index.html` (a select with disabled options, a radio group with a
//! disabled radio and a radio of another group among it, number and range inputs, a text field, a
//! textarea, a checkbox, a button, a link, a form; `reset(id, start, end, prevent)` puts it back and
//! focuses `id`, `state()` reads it).

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval, ok, open, Server};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::Client;
use serde_json::{json, Value};

/// One press: the focused control (and its text selection), the chord, and what it changes in
/// `state()` (field, value); every other field stays as the trusted press leaves it.
struct Case {
    /// A statement run after the fixture is reset, before the press.
    setup: &'static str,
    focus: &'static str,
    selection: Option<(u32, u32)>,
    chord: &'static str,
    want: &'static [(&'static str, &'static str)],
}

const fn case(
    focus: &'static str,
    selection: Option<(u32, u32)>,
    chord: &'static str,
    want: &'static [(&'static str, &'static str)],
) -> Case {
    Case {
        setup: "",
        focus,
        selection,
        chord,
        want,
    }
}

/// `c` from the state `setup` makes.
const fn from(setup: &'static str, c: Case) -> Case {
    Case { setup, ..c }
}

/// The cases: each key on each kind of control, from the fixture's initial state.
const CASES: &[Case] = &[
    // A select: the next or previous option that can be chosen (past a disabled one, and one in a
    // disabled group), the first, the last.
    case("fruit", None, "ArrowDown", &[("fruit", "Elder")]),
    case("fruit", None, "ArrowRight", &[("fruit", "Elder")]),
    case("fruit", None, "ArrowUp", &[("fruit", "Apple")]),
    case("fruit", None, "ArrowLeft", &[("fruit", "Apple")]),
    case("fruit", None, "Home", &[("fruit", "Apple")]),
    case("fruit", None, "End", &[("fruit", "Honeydew")]),
    case("fruit", None, "PageDown", &[("fruit", "Elder")]),
    case("fruit", None, "PageUp", &[("fruit", "Apple")]),
    // Chromium counts three list items on, the disabled ones and the group among them.
    from(
        "fruit.value = 'Apple'",
        case("fruit", None, "PageDown", &[("fruit", "Elder")]),
    ),
    from(
        "fruit.value = 'Honeydew'",
        case("fruit", None, "PageUp", &[("fruit", "Elder")]),
    ),
    from(
        "fruit.value = 'Honeydew'",
        case("fruit", None, "ArrowDown", &[("fruit", "Honeydew")]),
    ),
    // A radio group: the next or previous radio of the same name that can be used, round.
    case("size-s", None, "ArrowDown", &[("size", "l"), ("focused", "size-l")]),
    case("size-s", None, "ArrowRight", &[("size", "l"), ("focused", "size-l")]),
    case("size-s", None, "ArrowUp", &[("size", "xl"), ("focused", "size-xl")]),
    case("size-s", None, "ArrowLeft", &[("size", "xl"), ("focused", "size-xl")]),
    case("size-xl", None, "ArrowDown", &[("size", "s"), ("focused", "size-s")]),
    case("size-l", None, " ", &[("size", "l")]),
    // Right to left, the arrows left and right swap.
    case("side-a", None, "ArrowLeft", &[("side", "b"), ("focused", "side-b")]),
    case("side-a", None, "ArrowRight", &[("side", "c"), ("focused", "side-c")]),
    case("side-a", None, "ArrowDown", &[("side", "b"), ("focused", "side-b")]),
    // A number field: a step up or down within min and max; from empty, the minimum.
    case("count", None, "ArrowUp", &[("count", "6")]),
    case("count", None, "ArrowDown", &[("count", "2")]),
    case("count", None, "PageUp", &[("count", "4")]),
    case("blank", None, "ArrowUp", &[("blank", "3")]),
    case("blank", None, "ArrowDown", &[("blank", "3")]),
    // A range: a step, a tenth of the range, the ends.
    case("level", None, "ArrowRight", &[("level", "52")]),
    case("level", None, "ArrowUp", &[("level", "52")]),
    case("level", None, "ArrowLeft", &[("level", "48")]),
    case("level", None, "ArrowDown", &[("level", "48")]),
    case("level", None, "PageUp", &[("level", "60")]),
    case("level", None, "PageDown", &[("level", "40")]),
    case("level", None, "Home", &[("level", "0")]),
    case("level", None, "End", &[("level", "100")]),
    from("level.value = 99", case("level", None, "ArrowUp", &[("level", "100")])),
    case("balance", None, "ArrowLeft", &[("balance", "1")]),
    case("balance", None, "ArrowRight", &[("balance", "-1")]),
    case("balance", None, "Home", &[("balance", "-10")]),
    // The caret in a text field, and a selection extended with Shift.
    case("name", Some((5, 5)), "ArrowLeft", &[("name", "4-4")]),
    case("name", Some((5, 5)), "ArrowRight", &[("name", "6-6")]),
    case("name", Some((5, 5)), "Home", &[("name", "0-0")]),
    case("name", Some((5, 5)), "End", &[("name", "11-11")]),
    case("name", Some((2, 8)), "ArrowLeft", &[("name", "2-2")]),
    case("name", Some((2, 8)), "ArrowRight", &[("name", "8-8")]),
    case("name", Some((5, 5)), "Shift+ArrowLeft", &[("name", "4-5<")]),
    case("name", Some((5, 5)), "Shift+ArrowRight", &[("name", "5-6")]),
    case("name", Some((5, 5)), "Shift+Home", &[("name", "0-5<")]),
    case("name", Some((5, 5)), "Shift+End", &[("name", "5-11")]),
    case("name", Some((5, 5)), "Control+ArrowRight", &[("name", "11-11")]),
    case("name", Some((5, 5)), "Control+ArrowLeft", &[("name", "0-0")]),
    case("name", Some((5, 5)), "Control+Shift+ArrowLeft", &[("name", "0-5<")]),
    case("name", Some((5, 5)), "ArrowUp", &[("name", "0-0")]),
    case("name", Some((5, 5)), "ArrowDown", &[("name", "11-11")]),
    // In a textarea, Home and End keep to the line.
    case("notes", Some((14, 14)), "Home", &[("notes", "11-11")]),
    case("notes", Some((14, 14)), "End", &[("notes", "22-22")]),
    case("notes", Some((14, 14)), "ArrowLeft", &[("notes", "13-13")]),
    case("notes", Some((14, 14)), "ArrowUp", &[("notes", "3-3")]),
    case("notes", Some((3, 3)), "Shift+ArrowDown", &[("notes", "3-14")]),
    case("notes", Some((14, 14)), "Control+Home", &[("notes", "0-0")]),
    case("notes", Some((3, 3)), "Control+End", &[("notes", "22-22")]),
    // A contenteditable element's caret and selection.
    from(
        "getSelection().collapse(document.getElementById('rich').firstChild, 5)",
        case("rich", None, "ArrowLeft", &[("rich", "4-4")]),
    ),
    from(
        "getSelection().collapse(document.getElementById('rich').firstChild, 5)",
        case("rich", None, "Shift+End", &[("rich", "5-11")]),
    ),
    // Space and Enter: a checkbox toggles on Space; a button is clicked by both; a link is followed
    // by Enter; Enter in a form's field or on its checkbox submits it (by its default button).
    case("agree", None, " ", &[("agree", "true")]),
    case("agree", None, "Enter", &[("agree", "false")]),
    case("btn", None, " ", &[("clicks", "1")]),
    case("btn", None, "Enter", &[("clicks", "1")]),
    case("guarded", None, " ", &[("clicks", "1")]),
    case("guarded", None, "Enter", &[("clicks", "0")]),
    case("link", None, "Enter", &[("hash", "#followed")]),
    case("link", None, " ", &[("hash", "")]),
    case("kept", None, "Enter", &[("hash", "#kept")]),
    // An element that only says it is a button: the browser clicks nothing; its own handler would.
    case("fake", None, "Enter", &[("clicks", "0")]),
    case("fake", None, " ", &[("clicks", "0")]),
    case("q", Some((0, 0)), "Enter", &[("submits", "1")]),
    case("opt", None, "Enter", &[("submits", "1"), ("opt", "false")]),
    case("opt", None, " ", &[("opt", "true")]),
    // A multi-select list box: an arrow, Home or End selects the next option alone (past a
    // disabled one); with Shift, the range from where the keys started; with Control only the
    // active option moves; Space alone toggles nothing.
    case("multi", None, "ArrowDown", &[("multi", "e")]),
    case("multi", None, "ArrowUp", &[("multi", "b")]),
    case("multi", None, "Shift+ArrowDown", &[("multi", "c,e")]),
    case("multi", None, "Shift+ArrowUp", &[("multi", "b,c")]),
    case("multi", None, "Home", &[("multi", "a")]),
    case("multi", None, "End", &[("multi", "g")]),
    case("multi", None, "Shift+End", &[("multi", "c,e,f,g")]),
    case("multi", None, "PageDown", &[("multi", "g")]),
    case("multi", None, "Control+ArrowDown", &[("multi", "c")]),
    case("multi", None, " ", &[("multi", "c")]),
    from(
        "for (const o of document.getElementById('multi').options) o.selected = o.value == 'a' || o.value == 'f'",
        case("multi", None, "ArrowUp", &[("multi", "b")]),
    ),
    // Keys no control takes scroll: the focused box, or the page once it is at its end.
    case("btn", None, "ArrowDown", &[("scroll", "+40")]),
    case("btn", None, "PageDown", &[("scroll", "+PAGE")]),
    case("agree", None, "End", &[("scroll", "END")]),
    case("fake", None, " ", &[("scroll", "+PAGE")]),
    case("link", None, "PageDown", &[("scroll", "+PAGE")]),
    case("size-s", None, "End", &[("scroll", "END")]),
    from("scrollTo(0, 1000)", case("btn", None, "Home", &[("scroll", "0")])),
    from("scrollTo(0, 1000)", case("btn", None, "ArrowUp", &[("scroll", "960")])),
    from(
        "scrollTo(0, 1000)",
        case("fake", None, "Shift+Space", &[("scroll", "-PAGE")]),
    ),
    case("count", None, "PageDown", &[("scroll", "+PAGE"), ("count", "4")]),
    case("name", Some((5, 5)), "PageDown", &[("scroll", "+PAGE")]),
    case("box", None, "ArrowDown", &[("box", "40"), ("scroll", "+0")]),
    case("box", None, "End", &[("box", "340"), ("scroll", "+0")]),
    from(
        "document.getElementById('box').scrollTop = 340",
        case("box", None, "ArrowDown", &[("box", "340"), ("scroll", "+40")]),
    ),
];

/// The WebDriver key of a DOM key name (a character is itself).
fn wd_key(key: &str) -> char {
    let named = match key {
        "ArrowDown" => Key::Down,
        "ArrowUp" => Key::Up,
        "ArrowLeft" => Key::Left,
        "ArrowRight" => Key::Right,
        "Home" => Key::Home,
        "End" => Key::End,
        "PageUp" => Key::PageUp,
        "PageDown" => Key::PageDown,
        "Enter" => Key::Enter,
        "Shift" => Key::Shift,
        "Control" => Key::Control,
        "Space" => return ' ',
        _ => return key.chars().next().expect("a key"),
    };
    named.into()
}

/// Presses `chord` as a person does: chromedriver's key actions (modifiers down first, up last).
async fn trusted_press(c: &Client, chord: &str) {
    let keys: Vec<char> = chord
        .split('+')
        .map(|k| wd_key(if k.is_empty() { "+" } else { k }))
        .collect();
    let mut a = KeyActions::new("keyboard".into());
    for &k in &keys {
        a = a.then(KeyAction::Down { value: k });
    }
    for &k in keys.iter().rev() {
        a = a.then(KeyAction::Up { value: k });
    }
    c.perform_actions(a).await.expect("key actions");
    c.release_actions().await.expect("release keys");
}

/// The page.
const FIXTURE: &str = "/keys/index.html";

/// `state()` after pressing the case's chord from the fixture's initial state, as a person
/// (`trusted`) or through a `press` step; with `prevent`, the page prevents the keydown.
async fn pressed(c: &Client, server: &Server, id: &mut String, k: &Case, trusted: bool, prevent: bool) -> Value {
    // A link is tried on a fresh page: after a person's Space whose keydown the page prevented
    // (chromedriver's, on a radio), the document followed no same-page link any more, by key or by
    // `click()`, for a person's press and the agent's alike (seen in Chromium 156).
    if k.want.iter().any(|(f, _)| *f == "hash") {
        *id = open(c, server, FIXTURE).await;
    }
    let id = id.as_str();
    let (start, end) = k
        .selection
        .map_or((Value::Null, Value::Null), |(s, e)| (json!(s), json!(e)));
    let reset = eval(
        server,
        id,
        &format!(
            "const f = reset({}, {start}, {end}, {prevent}); {}; return [f, Math.round(scrollY)]",
            json!(k.focus),
            k.setup
        ),
    )
    .await;
    assert_eq!(reset[0], k.focus, "the fixture focuses {}", k.focus);
    if trusted {
        trusted_press(c, k.chord).await;
    } else {
        ok(server, id, json!({"command": "press", "key": k.chord})).await;
    }
    // A followed link's hash change and the events it fires have landed: the page is read after
    // the press, through the same client either way (once what the key scrolled is at rest).
    let mut state = eval(server, id, "return await state()").await;
    // Where focusing the control scrolled the page, for the press that must change nothing.
    state["before"] = reset[1].clone();
    state
}

chromium_test!(keys_do_what_a_person_s_keys_do, Axum, |c, server| {
    let mut id = open(c, &server, FIXTURE).await;
    let initial = eval(&server, &id, "reset('fruit'); return await state()").await;
    // The page's own measures, which the scrolling cases name: a page of the view (87.5 % of
    // it, as Chromium pages), the furthest the page scrolls.
    let view = eval(&server, &id, "const r = document.documentElement; return [Math.floor(r.clientHeight * 0.875), r.scrollHeight - r.clientHeight]").await;
    // `+40`, `-PAGE`: that far from where the page was before the press.
    let measure = |want: &str, before: &Value| {
        let px = |w: &str| match w {
            "PAGE" => view[0].as_i64().unwrap_or_default(),
            "END" => view[1].as_i64().unwrap_or_default(),
            _ => w.parse().expect("px"),
        };
        let from = before.as_i64().unwrap_or_default();
        match (want.strip_prefix('+'), want.strip_prefix('-')) {
            (Some(w), _) => (from + px(w)).to_string(),
            (_, Some(w)) => (from - px(w)).to_string(),
            _ if want == "END" => px(want).to_string(),
            _ => want.to_owned(),
        }
    };
    let mut wrong = Vec::new();
    for k in CASES {
        let person = pressed(c, &server, &mut id, k, true, false).await;
        let ours = pressed(c, &server, &mut id, k, false, false).await;
        let what = format!("{} on #{} {:?}", k.chord, k.focus, k.selection);
        for (field, want) in k.want {
            let got = &person[*field];
            let got = got.as_str().map_or_else(|| got.to_string(), str::to_owned);
            // A scroll is counted from where the page was (`+40`, `-PAGE`).
            let want = if *field == "scroll" {
                measure(want, &person["before"])
            } else {
                (*want).to_owned()
            };
            if got != want {
                wrong.push(format!(
                    "{what}: a person's press leaves {field} = {got}, the case expects {want}: {person}"
                ));
            }
        }
        if person != ours {
            wrong.push(format!("{what}:\n  person: {person}\n  press:  {ours}"));
        }
        // Prevented on keydown: nothing changes but the log, either way.
        let person = pressed(c, &server, &mut id, k, true, true).await;
        let ours = pressed(c, &server, &mut id, k, false, true).await;
        if person != ours {
            wrong.push(format!("{what}, prevented:\n  person: {person}\n  press:  {ours}"));
        }
        if !k.setup.is_empty() {
            continue;
        }
        let mut unchanged = initial.clone();
        unchanged["focused"] = json!(k.focus);
        unchanged["scroll"] = person["before"].clone();
        unchanged["before"] = person["before"].clone();
        if let (Some((s, e)), true) = (k.selection, unchanged.get(k.focus).is_some()) {
            unchanged[k.focus] = json!(format!("{s}-{e}"));
        }
        unchanged["log"] = person["log"].clone();
        let log = person["log"].as_str().unwrap_or_default();
        if person != unchanged
            || ["input:", "change:", "click:", "submit:", "focus:", "blur:"]
                .iter()
                .any(|e| log.contains(e))
        {
            wrong.push(format!(
                "{what}, prevented: a person's press changed\n  {person}\n  from {unchanged}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{} differences:\n{}", wrong.len(), wrong.join("\n"));
});
