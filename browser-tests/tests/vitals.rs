//! The `vitals` step (issue 35 item 2) in real headless Chromium: on a page with a known largest
//! paint (an image), a known layout shift (a banner inserted above the content after load), a
//! known long task and a known slow click handler (a 200 ms busy loop), the answer names the right
//! elements with refs that act on them, the INP target is the button, and the long task and the
//! long animation frames name the script (`fixtures/vitals/`). The click is a real one (WebDriver's,
//! trusted input: Event Timing ignores synthetic events). The step works over `/run` and MCP;
//! bad input is a clear 400.

use std::time::{Duration, Instant};

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, eval_until, mcp_tool, ok, open, run_raw, Server};
use fantoccini::Locator;
use serde_json::json;

/// The `vitals` text of `id`'s page.
async fn vitals(server: &Server, id: &str) -> String {
    let v = ok(server, id, json!({"command": "vitals"})).await;
    v["result"]
        .as_str()
        .unwrap_or_else(|| panic!("vitals answers text: {v}"))
        .to_owned()
}

/// Asks for vitals until `check` accepts the text (the browser reports an interaction after its
/// next paint); fails after 10 s with the last text.
async fn vitals_until(server: &Server, id: &str, what: &str, check: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = vitals(server, id).await;
        if check(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{what}; the last answer:\n{text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Types "an" into the search of `fixtures/profile/` (each key filters the list, 150 ms of the
/// page's scripts): the step's answer.
async fn type_in_search(server: &Server, id: &str) -> String {
    let v = ok(server, id, json!({"command": "type", "label": "Search", "text": "an"})).await;
    v["result"]
        .as_str()
        .unwrap_or_else(|| panic!("type answers text: {v}"))
        .to_owned()
}

/// The line of `text` that starts with `head`.
fn line<'a>(text: &'a str, head: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(head))
        .unwrap_or_else(|| panic!("no line starting {head:?} in\n{text}"))
}

/// The ref right after `needle` in `line` (`needle [ref=e4]`).
fn ref_after(line: &str, needle: &str) -> String {
    let at = line
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {line:?}"));
    let rest = &line[at + needle.len()..];
    let rest = rest
        .strip_prefix(" [ref=")
        .unwrap_or_else(|| panic!("no ref after {needle:?} in {line:?}"));
    rest.split(']').next().expect("a ref").to_owned()
}

/// The whole number right after `needle` in `line` (`handlers 203 ms`).
fn number_after(line: &str, needle: &str) -> f64 {
    let at = line
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {line:?}"));
    let digits: String = line[at + needle.len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {needle:?} in {line:?}"))
}

/// The label of the element a ref acts on (a `hover` on it; its answer's target).
async fn target_of(server: &Server, id: &str, r: &str) -> String {
    let v = ok(server, id, json!({"command": "hover", "ref": r})).await;
    v["target"]["label"].as_str().unwrap_or_default().to_owned() + " " + v["result"].as_str().unwrap_or_default()
}

chromium_test!(vitals_name_the_elements_and_scripts_with_refs, Axum, |c, server| {
    // A tab of its own, in front: a page that does not get frames paints nothing to measure.
    let original = c.window().await.expect("window");
    let tab = c.new_window(true).await.expect("new tab");
    c.switch_to_window(tab.handle.clone()).await.expect("switch");
    let id = open(c, &server, "/vitals/index.html").await;
    // The banner went in and the long task ran (the title says it).
    eval_until(
        &server,
        &id,
        "window.shifted && document.title",
        "the page's jank ran",
        |v| v.as_str().is_some_and(|t| t.contains("jank done")),
    )
    .await;

    // A real click on Save (trusted input), after the shift (so the shift is not input's).
    c.find(Locator::Css("#save"))
        .await
        .expect("Save")
        .click()
        .await
        .expect("click Save");
    // The interaction's entry and the long animation frame that names its script arrive in either
    // order (each after the frame's paint): wait for both.
    let text = vitals_until(&server, &id, "the slow click is reported with its script", |t| {
        t.lines()
            .any(|l| l.starts_with("INP ") && l.contains("button \"Save\"") && l.contains("onSave in "))
    })
    .await;
    println!("{text}");

    // LCP: the hero image, with a ref that acts on it.
    let lcp = line(&text, "LCP ");
    let hero = ref_after(lcp, "img \"Hero\"");
    assert!(lcp.contains("/vitals/hero.png"), "{lcp}");
    assert!(
        target_of(&server, &id, &hero).await.contains("Hero"),
        "{hero} is the hero image"
    );

    // CLS: the content moved down by the banner's 120px, named with its ref.
    let cls = line(&text, "CLS ");
    assert!(!cls.starts_with("CLS 0.00"), "{cls}");
    assert!(cls.contains("moved 120px"), "{cls}");
    let moved = ref_after(cls, "main");
    assert!(
        target_of(&server, &id, &moved).await.contains("main"),
        "{moved} is the content that moved: {cls}"
    );

    // INP: the click on Save; its handler's 200 ms; the script and function that ran.
    let inp = line(&text, "INP ");
    assert!(
        inp.starts_with("INP ") && inp.contains("click button \"Save\""),
        "{inp}"
    );
    assert!(number_after(inp, "INP ") >= 200.0, "{inp}");
    assert!(number_after(inp, "handlers ") >= 195.0, "{inp}");
    assert!(inp.contains("onSave in /vitals/app.js"), "{inp}");
    let save = ref_after(inp, "button \"Save\"");
    let v = ok(&server, &id, json!({"command": "hover", "ref": save})).await;
    assert!(v.to_string().contains("Save"), "{save} is the Save button: {v}");

    // The long task and the long animation frames name the script that ran.
    let tasks = line(&text, "long tasks");
    assert!(tasks.contains("jank in /vitals/app.js"), "{tasks}");
    let frames = line(&text, "long animation frames");
    assert!(frames.contains("/vitals/app.js"), "{frames}");
    assert!(frames.contains("jank") && frames.contains("onSave"), "{frames}");

    // The slowest resources are the page's: not the client's own requests (its held poll, its
    // heartbeat, its assets), nor the step's reads of the scripts (asked again: they came before).
    let again = vitals(&server, &id).await;
    let resources = line(&again, "slowest resources");
    assert!(resources.contains("/vitals/hero.png"), "{resources}");
    assert!(
        !resources.contains(browser_tests::PREFIX) && !resources.contains("/browser/probe"),
        "{resources}"
    );
    assert!(!resources.contains("fetch /vitals/app.js"), "{resources}");

    // The same step over MCP (browser_run).
    let r = mcp_tool(
        &server,
        "browser_run",
        json!({"client": id, "steps": [{"command": "vitals"}]}),
    );
    let body = r.to_string();
    assert!(r["isError"] != json!(true), "{r}");
    assert!(body.contains("LCP ") && body.contains("img \\\"Hero\\\""), "{r}");

    // Bad input: a field the step does not take is a clear 400 before the page is asked.
    let (status, v) = run_raw(
        &server,
        json!({"client": id, "steps": [{"command": "vitals", "limit": 3}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    let error = v.to_string();
    assert!(error.contains("vitals") && error.contains("limit"), "{v}");

    c.close_window().await.expect("close the tab");
    c.switch_to_window(original).await.expect("back");
});

chromium_test!(
    an_acting_step_names_the_page_functions_that_took_its_time,
    Axum,
    |c, server| {
        // Round 8: typing into a slow search answered "typed", and `vitals` could not help (a
        // synthetic event is no interaction to the browser; the long frame named the step's own
        // callback). While an agent is attached the host lets pages profile their scripts, and a step
        // whose handlers ran long names the functions, source-mapped (`fixtures/profile/`).
        let path = format!("{}/page", browser_tests::PREFIX);
        let addr = server.addr;
        tokio::task::spawn_blocking(move || browser_tests::http_get(addr, &path))
            .await
            .expect("an agent's call");
        let id = open(c, &server, "/profile/index.html").await;
        let answer = type_in_search(&server, &id).await;
        println!("{answer}");
        assert!(
            answer.starts_with("typed \"an\"")
                && answer.contains("; the page's scripts ran ")
                && answer.contains(": buildIndex src/app.js:2 (")
                && answer.contains(" ← filterItems src/app.js:11"),
            "{answer}"
        );
        // `vitals` says the long frame was the agent's step, and why there is no INP.
        let text = vitals_until(&server, &id, "the long frame is the agent's step", |t| {
            t.contains("the agent's type step: the page's handlers ran inside it, ")
        })
        .await;
        println!("{text}");
        assert!(line(&text, "INP").contains("synthetic events"), "{text}");
        // The paragraph the list pushed down moved because of the agent's typing: no layout shift,
        // as a person's typing would make none.
        assert!(!line(&text, "CLS").contains("moved"), "{text}");
        // A step whose handlers are quick says nothing of them.
        let v = ok(&server, &id, json!({"command": "click", "text": "Fruit"})).await;
        assert!(!v["result"].as_str().unwrap_or_default().contains("scripts ran"), "{v}");
    }
);

chromium_test!(a_page_loaded_before_the_agent_says_to_reload_it, Axum, |c, server| {
    // Loaded before any agent called, the page has no profiling policy: a slow step says how long
    // the page's scripts ran and that a reload lets it name them; after the reload (in the same
    // batch) it does.
    let id = open(c, &server, "/profile/index.html").await;
    let answer = type_in_search(&server, &id).await;
    assert!(
        answer.contains("; the page's scripts ran ")
            && answer.contains(" ms in long tasks (reload the page to see which functions"),
        "{answer}"
    );
    let (status, v) = run_raw(
        &server,
        json!({"client": id, "steps": [{"command": "reload"}, {"command": "type", "label": "Search", "text": "an"}]}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let answer = v["steps"][1]["result"].as_str().unwrap_or_default();
    assert!(answer.contains(": buildIndex src/app.js:2 ("), "{v}");
});
