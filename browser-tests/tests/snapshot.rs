//! The accessibility snapshot and the command channel in real headless Chromium, driven through the
//! host's agent API (`POST {prefix}/run`, `GET {prefix}/snapshot`) like a coding agent drives it.
//!
//! - Golden snapshots of the fixture pages under `fixtures/snapshot/`, compared exactly with
//!   `golden/<name>.txt` (`UPDATE_GOLDEN=1` rewrites them; review every change).
//! - Refs stay with their elements across snapshots, are never reused, and a gone ref fails loudly.
//! - A batch runs in order and stops at the first failing step; its logs are the entries recorded
//!   while it ran; the final snapshot is always there.
//! - A page that navigates away mid-poll leaves no stuck connection: the next page gets the next batch.
//! - A page that leaves is gone at once (its `pagehide` beacon): batches fail at once instead of
//!   timing out, and a batch handed over to a page that never starts a client fails saying so.
//!
//! Figures per fixture (lines, characters, tokens estimated as characters / 4, walk time) are
//! printed and written to `target/browser-tests/snapshot-figures.txt`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use browser_tests::Framework::Axum;
use browser_tests::{
    chromium_test, client_id, exec, http_get, http_post_json, mcp_tool, open, ref_in, run, run_raw, run_timed,
    snapshot, Server, PREFIX,
};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden")
}

/// The loopback origin (random port) replaced by a fixed one, so goldens do not depend on the port.
fn normalize(text: &str, server: &Server) -> String {
    text.replace(&format!("http://{}", server.addr), "http://HOST")
}

/// Compares `text` with `golden/<name>.txt`, or rewrites the file when `UPDATE_GOLDEN` is set.
fn check_golden(name: &str, text: &str) -> Result<(), String> {
    let path = golden_dir().join(format!("{name}.txt"));
    let want_text = format!("{text}\n");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).expect("golden dir");
        std::fs::write(&path, &want_text).expect("write golden");
        return Ok(());
    }
    let want = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display()))?;
    if want == want_text {
        return Ok(());
    }
    let mut report = format!("snapshot of {name} differs from {}:\n", path.display());
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), want_text.lines().collect());
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i).copied(), g.get(i).copied());
        if a != b {
            report.push_str(&format!("  line {}:\n    want {a:?}\n    got  {b:?}\n", i + 1));
        }
    }
    report.push_str("--- got ---\n");
    report.push_str(text);
    Err(report)
}

/// The biglist golden holds its head, its tail and its line count (8,000 lines are not reviewable).
fn summarize_long(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 40 {
        return text.to_owned();
    }
    let mut out: Vec<String> = lines[..24].iter().map(|s| s.to_string()).collect();
    out.push(format!("… ({} lines in all)", lines.len()));
    out.extend(lines[lines.len() - 8..].iter().map(|s| s.to_string()));
    out.join("\n")
}

struct Figure {
    name: &'static str,
    lines: usize,
    chars: usize,
    walk_ms: f64,
}

const FIXTURES: &[&str] = &[
    "react", "todo", "settings", "hidden", "modal", "table", "shadow", "iframe", "biglist",
];

// Each scenario is its own test, on the binary's shared browser, each with a fresh test app.
chromium_test!(snapshots_match_their_goldens, Axum, |c, server| {
    let figures = goldens(c, &server).await;
    let mut table = String::from("fixture | lines | chars | tokens (chars/4) | walk ms\n");
    for f in &figures {
        table.push_str(&format!(
            "{} | {} | {} | {} | {:.0}\n",
            f.name,
            f.lines,
            f.chars,
            f.chars.div_ceil(4),
            f.walk_ms
        ));
    }
    eprintln!("{table}");
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/browser-tests/snapshot-figures.txt");
    let _ = std::fs::write(out, &table);
    // The walk times are figures for the README (target: the 2,000-item list in ≤ 300 ms), not
    // assertions: this machine is shared and noisy.
});
chromium_test!(states_an_agent_reads, Axum, |c, server| {
    // aria-current, aria-sort, readonly, invalid: the untouched required field is not invalid,
    // the same field after the agent typed a bad address is.
    let page = open(c, &server, "/snapshot/states.html").await;
    let text = snapshot(&server, &page).await;
    for line in [
        "link \"Shipping\" [current=\"step\"]",
        "columnheader \"Name\" [sort=\"ascending\"]",
        "textbox \"Order id\" [value=\"A-17\"] [readonly]",
        "textbox \"Coupon\" [value=\"XMAS\"] [invalid]",
        "textbox \"Notes\" [value=\"fixed\"] [readonly]",
        "textbox \"Email\" [required]",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    assert!(
        !text.contains("\"Pay\" [current"),
        "aria-current=false is no state:\n{text}"
    );
    assert!(!text.contains("\"Age\" [sort"), "aria-sort=none is no state:\n{text}");
    let v = run(&server, &page, json!([{"command": "type", "label": "Email", "text": "not-an-address"}, {"command": "press", "key": "Tab"}, {"command": "snapshot"}])).await;
    let after = v["steps"][2]["result"].as_str().unwrap();
    assert!(
        after.contains("textbox \"Email\" [value=\"not-an-address\"] [required] [invalid]"),
        "{after}"
    );
});
chromium_test!(clickable_icons_are_refd_and_clicked, Axum, |c, server| {
    // Issue 11 item 6: an svg or icon element that is itself clickable (pointer cursor, a
    // delegated handler) is a ref'd `clickable`; one inside a clickable parent or a button is not.
    let page = open(c, &server, "/snapshot/icons.html").await;
    let text = snapshot(&server, &page).await;
    let refd = |prefix: &str| {
        text.lines()
            .map(str::trim_start)
            .find(|l| l.starts_with(prefix) && l.contains("[ref=e"))
            .map(|l| l[l.rfind("[ref=").unwrap() + 5..l.len() - 1].to_owned())
    };
    for line in [
        "clickable \"Star a.txt\"",
        "clickable \"Trash a.txt\"",
        "clickable \"Open a.txt\"",
    ] {
        assert!(refd(line).is_some(), "no ref'd {line:?} in\n{text}");
    }
    // The unnamed delete icon is a clickable of its own, under the list item; the card around
    // "Report" is one clickable, its chart icon (the card's pointer, inherited) an image in it.
    let lines: Vec<&str> = text.lines().collect();
    let item = lines.iter().position(|l| l.contains("listitem")).expect("list item");
    assert!(lines[item + 2].trim_start().starts_with("clickable [ref="), "{text}");
    assert!(
        text.contains("clickable [ref=e5]\n  \"Report\"\n  img \"Chart\""),
        "{text}"
    );
    assert!(text.contains("button \"Close\""), "{text}");
    assert!(!text.contains("clickable \"Close\""), "{text}");
    // The delegated handler sees the clicks: read back from the page, not from our answer.
    let unnamed_ref = {
        let l = lines[item + 2];
        l[l.rfind("[ref=").unwrap() + 5..l.len() - 1].to_owned()
    };
    for (target, want) in [
        (unnamed_ref, "delete a.txt"),
        (refd("clickable \"Star a.txt\"").unwrap(), "star a.txt"),
    ] {
        let v = run(&server, &page, json!([{"command": "click", "ref": target}])).await;
        assert!(v["error"].is_null(), "{v}");
        let log = exec(c, "return document.getElementById('log').textContent").await;
        assert_eq!(log, want, "{v}");
    }
    // Elements with a role of their own that take clicks (a pointer cursor, an onclick, a tabindex
    // of 0 or more) keep their role and get a ref; a tabindex of -1 (focus by script) does not.
    for line in ["row [ref=e", "listitem [ref=e", "heading \"Section\" [level=3] [ref=e"] {
        assert!(refd(line).is_some(), "no ref'd {line:?} in\n{text}");
    }
    let ada = text.lines().find(|l| l.contains("\"Ada\"")).expect("Ada's row");
    assert!(
        ada.trim_start().starts_with("row [ref=e") && ada.ends_with("]: \"Ada\", \"ada@x.io\""),
        "{ada}"
    );
    assert!(text.contains("\"Apple\"") && text.contains("\"Banana\""), "{text}");
    assert_eq!(
        text.matches("listitem [ref=e").count(),
        2,
        "Apple and Banana, not Cherry:\n{text}"
    );
    assert!(
        text.contains("heading \"Focus target\" [level=2]\n") || text.ends_with("heading \"Focus target\" [level=2]"),
        "{text}"
    );
    assert!(!text.contains("columnheader \"Name\" [ref"), "{text}");
    // Focus guards (empty, focusable) are no controls; a named empty focusable is.
    assert!(text.contains("clickable \"Red swatch\" [ref=e"), "{text}");
    let nameless = text
        .lines()
        .filter(|l| l.trim_start().starts_with("clickable [ref="))
        .count();
    assert_eq!(nameless, 2, "the icon and the report card, no guard:\n{text}");
    let row = &ada[ada.find("[ref=").unwrap() + 5..ada.find("]:").unwrap()];
    let v = run(&server, &page, json!([{"command": "click", "ref": row}])).await;
    assert!(v["error"].is_null(), "{v}");
    let log = exec(c, "return document.getElementById('log').textContent").await;
    assert_eq!(log, "row ada", "{v}");
    // A label whose checkbox is not displayed is the control's only node; a label of a shown
    // control is its name, not a clickable of its own.
    let toggle = refd("clickable \"Dark mode\"").unwrap_or_else(|| panic!("no toggle in\n{text}"));
    assert!(
        text.contains("textbox \"Nickname\" [ref=e") && !text.contains("clickable \"Nickname\""),
        "{text}"
    );
    assert!(
        text.contains(&format!("clickable \"Dark mode\" [ref={toggle}]")),
        "{text}"
    );
    // It carries its checkbox's state: the click's diff says it is on now.
    let v = run(&server, &page, json!([{"command": "click", "ref": toggle}])).await;
    assert!(v["error"].is_null(), "{v}");
    assert_eq!(exec(c, "return document.getElementById('dark').checked").await, true);
    let diff = v["snapshot"].as_str().unwrap_or_default();
    assert!(
        diff.contains(&format!("~ clickable \"Dark mode\" [checked] [ref={toggle}]")),
        "{v}"
    );
});
chromium_test!(layout_tables_and_lists_print_no_rows, Axum, |c, server| {
    // Old apps lay pages out with tables (`role=presentation`): no `row:`/`cell` lines for them,
    // as in Chromium's tree; a real table inside one, and an item with its own role, still are.
    // And the old web's other habits: empty header cells, menus built of lists, icon fonts.
    let page = open(c, &server, "/snapshot/layout.html").await;
    let text = snapshot(&server, &page).await;
    let expected = [
        "\"Hacker News\"",
        "link \"new\" [ref=e1]",
        "\"|\"",
        "link \"past\" [ref=e2]",
        "\"1.\"",
        "link \"A story\" [ref=e3]",
        "\"(example.com)\"",
        "\"Totals\"",
        "table \"Scores\"",
        "  row: columnheader \"Name\", \"Score\"",
        "  row: \"Ada\", \"36\"",
        "link \"About\" [ref=e4]",
        "\"Jobs\"",
        "listitem: \"Kept item\"",
        "list: listitem: \"Plain item\"",
        // An empty header cell keeps its column.
        "table",
        "  row: columnheader \"Passenger\", \"\"",
        "  row: \"Ann\", cell: link \"Remove\" [ref=e5]",
        // A menu's `<li>`s wrap its items: no list items.
        "menu \"Shelf\"",
        "  menuitem \"Books\" [ref=e6]",
        "  menuitem \"Music\" [ref=e7]",
        // `aria-disabled` on the `<li>` disables the item in it (ARIA: the focusable descendants).
        "  menuitem \"Films\" [disabled] [ref=e8]",
        // An icon font's glyph names nothing: the title does.
        "link \"Delete user jdoe\" [ref=e9]",
        // A label whose control is hidden from the tree (select2) keeps its text.
        "\"Country\"",
        "combobox \"Choose a country\" [collapsed] [ref=e10]: \"Choose…\"",
        // Text a pseudo-element hides is no text.
        "textbox \"Age\" [ref=e11]",
        "button \"Save\" [ref=e12]",
    ]
    .join("\n");
    assert_eq!(text, expected);
});
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_sets_its_own_snapshot_budget() {
    // `.snapshot_budget(1_000)`: the page's default view (and the batch's final snapshot) is cut
    // to it and is still the default view (not scoped, diffed); a step's own budget or `full`
    // still wins.
    let browser = browser_tests::shared_browser().await;
    let agent = browser_agent_core::BrowserAgent::builder()
        .enabled(true)
        .page_key(browser_tests::PAGE_KEY)
        .snapshot_budget(1_000)
        .build();
    let server = Server::start_on(Axum, agent, browser_tests::any_port());
    let c = &browser.client;
    browser_tests::within(
        "a_host_sets_its_own_snapshot_budget",
        browser_tests::SCENARIO_DEADLINE,
        async {
            let id = open(c, &server, "/snapshot/biglist.html").await;
            let v = run(&server, &id, json!([{ "command": "snapshot" }])).await;
            let small = v["steps"][0]["result"].as_str().expect("snapshot").to_owned();
            assert!(
                small.len() * 4 <= 1_000 * 11,
                "{} chars for a budget of 1,000 tokens",
                small.len()
            );
            assert!(v["steps"][0]["cut"].as_u64().is_some_and(|n| n > 1_900), "{v}");
            assert_eq!(
                v["steps"][0]["scoped"],
                Value::Null,
                "the host's budget is the default view: {v}"
            );
            assert_eq!(
                v["snapshot"], "(as step 1 showed it)",
                "the page's first snapshot is the step's view: named, not repeated: {v}"
            );
            let v = run(&server, &id, json!([{ "command": "snapshot", "budget": 8_000 }])).await;
            let big = v["steps"][0]["result"].as_str().expect("snapshot");
            assert!(big.len() > 4 * small.len(), "a step's own budget wins");
            assert_eq!(v["steps"][0]["scoped"], true, "{v}");
            let v = run(&server, &id, json!([{ "command": "snapshot", "full": true }])).await;
            let full = v["steps"][0]["result"].as_str().expect("snapshot");
            assert_eq!(full.matches("checkbox \"Item ").count(), 2_000);
        },
    )
    .await;
}
chromium_test!(refs_stay_with_their_elements, Axum, |c, server| {
    refs_stay_with_their_elements_case(c, &server).await
});
chromium_test!(controlled_input_rerender_gets_new_refs, Axum, |c, server| {
    controlled_input_rerender_gets_new_refs_case(c, &server).await
});
chromium_test!(batch_order_errors_and_logs, Axum, |c, server| {
    batch_order_errors_and_logs_case(c, &server).await
});
chromium_test!(snapshot_route, Axum, |c, server| snapshot_route_case(c, &server).await);
chromium_test!(budget_cuts_and_scoped_snapshots, Axum, |c, server| {
    budget_cuts_and_scoped_snapshots_case(c, &server).await
});
chromium_test!(a_budgeted_walk_stops_where_the_cut_is, Axum, |c, server| {
    a_budgeted_walk_stops_where_the_cut_is_case(c, &server).await
});
chromium_test!(navigating_mid_poll_leaves_no_stuck_connection, Axum, |c, server| {
    navigating_mid_poll_leaves_no_stuck_connection_case(c, &server).await
});
chromium_test!(a_page_that_leaves_is_gone_at_once, Axum, |c, server| {
    a_page_that_leaves_is_gone_at_once_case(c, &server).await
});

chromium_test!(pseudo_element_text_from_every_kind_of_sheet, Axum, |c, server| {
    // The walk reads ::before/::after only where some sheet may give them text: the page's own
    // sheet gives none, so each place below is found through one kind of sheet (a rule in @media
    // and @layer, an @import, CSS nesting, an adopted sheet, a shadow root's own <style>).
    let page = open(c, &server, "/snapshot/pseudo.html").await;
    // The frames load on their own; wait until the last ones have.
    let mut text = String::new();
    for _ in 0..50 {
        text = snapshot(&server, &page).await;
        if text.contains("three") && text.contains("two") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(text.contains("\"H-inside\""), "a host's :host::before:\n{text}");
    for name in ["plain", "A-one", "two-B", "four-D", "C-three", "S-shadow", "last"] {
        assert!(
            text.contains(&format!("button \"{name}\"")),
            "no button {name:?} in\n{text}"
        );
    }
    // Scoped to the button in the shadow tree: its root's sheet is found from the element up.
    let at = ref_in(&text, "button \"S-shadow\"");
    let v = run(&server, &page, json!([{"command": "snapshot", "ref": at}])).await;
    let scoped = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(scoped.starts_with("button \"S-shadow\""), "{v}");
    // A rule inserted later (CSS-in-JS does so) is seen: a sheet's kept verdict lasts only while
    // its rule count does.
    exec(
        c,
        "document.styleSheets[0].insertRule('.b::after { content: \"-N\" }', 1)",
    )
    .await;
    let text = snapshot(&server, &page).await;
    assert!(text.contains("button \"plain-N\""), "{text}");
});
chromium_test!(a_long_run_at_the_top_level_is_cut_and_paged, Axum, |c, server| {
    // 1,500 buttons straight in <body>: the default snapshot shows the first ones, then one cut
    // line; paging on with its offset returns every other button once, in order.
    let page = open(c, &server, "/snapshot/toplevel.html").await;
    let text = snapshot(&server, &page).await;
    assert!(
        !text.chars().any(|ch| ch.is_control() && ch != '\n'),
        "a raw line in\n{text}"
    );
    let mut seen: Vec<u32> = Vec::new();
    let mut text = text;
    loop {
        let mut next = None;
        for line in text.lines() {
            if let Some(n) = line.strip_prefix("button \"B").and_then(|r| r.split('"').next()) {
                seen.push(n.parse().expect("a number"));
            } else if line.starts_with('…') {
                assert!(line.contains("more button (snapshot {\"offset\":"), "{line}");
                next = Some(cut_step(line));
            } else {
                panic!("unexpected line {line:?}");
            }
        }
        let Some(step) = next else { break };
        let v = run(&server, &page, json!([step])).await;
        text = v["steps"][0]["result"].as_str().expect("a page").to_owned();
    }
    assert_eq!(seen, (1..=1500).collect::<Vec<u32>>(), "every button once, in order");
    // A ref written with spaces around it is read, and printed, as the ref.
    let at = ref_in(&snapshot(&server, &page).await, "button \"B7\"");
    let v = run(
        &server,
        &page,
        json!([{"command": "snapshot", "ref": format!(" {at} ")}]),
    )
    .await;
    assert_eq!(
        v["steps"][0]["result"],
        json!(format!("button \"B7\" [ref={at}]")),
        "{v}"
    );
    // e0 was never given out: unknown, not gone.
    let v = run(&server, &page, json!([{"command": "snapshot", "ref": "e0"}])).await;
    let err = v["steps"][0]["error"].as_str().unwrap_or_default();
    assert!(err.starts_with("There is no [ref=e0]"), "{v}");
});
chromium_test!(one_view_answers_the_same_on_every_surface, Axum, |c, server| {
    one_view_on_every_surface_case(c, &server).await
});
chromium_test!(a_long_table_fills_its_budget, Axum, |c, server| {
    // Rows are one line each, so the budget sizes them as that line (sized as a line per cell, a
    // 1,000-row table filled 73 % of its budget). The budgeted walk still answers what the whole
    // walk cut to the budget does, and the cut line counts the rows left.
    let page = open(c, &server, "/snapshot/longtable.html").await;
    let full = run(&server, &page, json!([{"command": "snapshot", "full": true}])).await;
    let full = full["steps"][0]["result"].as_str().expect("a snapshot").to_owned();
    for budget in [2_000, 8_000] {
        let v = run(&server, &page, json!([{"command": "snapshot", "budget": budget}])).await;
        let text = v["steps"][0]["result"].as_str().expect("a snapshot");
        let tokens = text.chars().count() as f64 / 2.75;
        assert!(
            tokens <= budget as f64 && tokens >= 0.9 * budget as f64,
            "budget {budget}: {tokens:.0} tokens"
        );
        // (The cut table shows the ref its cut line names; uncut, it shows none.)
        let unref = |l: &str| {
            if l.starts_with("table [ref=") {
                "table".to_owned()
            } else {
                l.to_owned()
            }
        };
        let lines: Vec<String> = text.lines().map(unref).collect();
        let cut = lines
            .iter()
            .position(|l| l.trim_start().starts_with('…'))
            .expect("a cut line");
        let whole: Vec<String> = full.lines().map(unref).collect();
        assert_eq!(lines[..cut], whole[..cut], "budget {budget}");
        let shown = text.matches("button \"Refund ").count();
        assert_eq!(
            v["steps"][0]["cut"],
            json!(1000 - shown),
            "budget {budget}: {}",
            lines[cut]
        );
    }
});
chromium_test!(a_filtered_or_on_screen_view_pages_through_itself, Axum, |c, server| {
    // A cut line of a `filter` or `viewport` view carries that view (and a budget the step gave),
    // and `offset`/`limit` count the matching children: following the cut lines visits each item
    // of the view once.
    let page = open(c, &server, "/snapshot/biglist.html").await;
    let names = |t: &str| -> Vec<String> {
        t.split("checkbox \"")
            .skip(1)
            .map(|r| r[..r.find('"').unwrap()].to_owned())
            .collect()
    };
    let follow = |first: Value| {
        let server = &server;
        let page = &page;
        async move {
            let (mut seen, mut next, mut lines) = (Vec::new(), Some(first), Vec::new());
            while let Some(step) = next.take() {
                let v = run(server, page, json!([step])).await;
                let t = v["steps"][0]["result"].as_str().expect("a page").to_owned();
                seen.extend(names(&t));
                let cut = t.lines().find(|l| l.trim_start().starts_with('…')).map(str::to_owned);
                next = cut.as_deref().map(cut_step);
                lines.extend(cut);
                assert!(lines.len() < 60, "paging never ends: {lines:?}");
            }
            (seen, lines)
        }
    };
    let (seen, lines) = follow(json!({"command": "snapshot", "filter": "Item 1", "budget": 2000})).await;
    assert!(lines.len() > 1, "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains(",\"filter\":\"Item 1\",\"budget\":2000})")),
        "{lines:?}"
    );
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (1_111, 1_111), "each match once: {lines:?}");
    assert!(seen.iter().all(|n| n.starts_with("Item 1")), "only matches");
    // A window counts the matches: Item 14, 140…149, 1400…1499.
    let list = lines[0]
        .split("\"ref\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let v = run(
        &server,
        &page,
        json!([{"command": "snapshot", "ref": list, "filter": "Item 14", "limit": 3}]),
    )
    .await;
    let t = v["steps"][0]["result"].as_str().unwrap();
    assert_eq!(names(t), ["Item 14", "Item 140", "Item 141"], "{t}");
    assert!(
        t.ends_with(&format!(
            "… 108 more listitem (snapshot {{\"ref\":\"{list}\",\"offset\":3,\"filter\":\"Item 14\"}})"
        )),
        "{t}"
    );
    // On screen: paging stays on screen.
    let v = run(
        &server,
        &page,
        json!([{"command": "snapshot", "viewport": true, "full": true}]),
    )
    .await;
    let on_screen = names(v["steps"][0]["result"].as_str().unwrap());
    assert!(on_screen.len() >= 10 && on_screen.len() < 100, "{on_screen:?}");
    let (seen, lines) = follow(json!({"command": "snapshot", "viewport": true, "budget": 100})).await;
    assert!(
        !lines.is_empty() && lines.iter().all(|l| l.contains(",\"viewport\":true,\"budget\":100})")),
        "{lines:?}"
    );
    assert_eq!(seen, on_screen, "{lines:?}");
});

chromium_test!(diffs_show_rows_that_moved_or_changed, Axum, |c, server| {
    // A row is one line in a diff: a changed cell comes with its row (once, `~`, keyed by the ref
    // it holds), and rows sorted anew say which moved (`>`), instead of "(no changes)" or a bare
    // `+ cell "80"`.
    let page = open(c, &server, "/snapshot/table.html").await;
    run(&server, &page, json!([{"command": "snapshot"}])).await;
    exec(
        c,
        "const b = document.querySelector('tbody'); const rows = b.rows; \
         b.insertBefore(rows[2], rows[0]); b.rows[2].cells[2].textContent = '$80.00'; return true",
    )
    .await;
    let v = run(&server, &page, json!([{"command": "snapshot", "diff": true}])).await;
    assert_eq!(
        v["steps"][0]["result"],
        "> row: \"#1003\", \"Grace Hopper\", \"$9.99\", cell: button \"Refund\" [disabled] [ref=e3]\n\
         ~ row: \"#1002\", \"Alan Turing\", \"$80.00\", cell: button \"Refund\" [ref=e2]",
        "{v}"
    );
});

chromium_test!(a_menu_opened_in_a_row_is_what_changed_in_it, Axum, |c, server| {
    // A row with a menu open in it is no longer one line: it was listed removed (one line) and
    // added (a line a cell), and again when the menu closed. Only what changed in it is listed,
    // each plain line with its row's text.
    let page = open(c, &server, "/snapshot/table.html").await;
    run(&server, &page, json!([{"command": "snapshot"}])).await;
    exec(
        c,
        "const cell = document.querySelector('tbody').rows[1].cells[3]; \
         cell.querySelector('button').setAttribute('aria-expanded', 'true'); \
         cell.insertAdjacentHTML('beforeend', '<div role=\"menu\"><div role=\"menuitem\" tabindex=\"-1\">Full refund</div>\
         <div role=\"menuitem\" tabindex=\"-1\">Partial refund</div></div>'); return true",
    )
    .await;
    let v = run(&server, &page, json!([{"command": "snapshot", "diff": true}])).await;
    let opened = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(
        opened.starts_with("~ button \"Refund\" [expanded] [ref=e2]\n+ menu in \"#1002 Alan Turing $75.50 Refund\"\n+ menuitem \"Full refund\"")
            && opened.lines().count() == 4,
        "{v}"
    );
    exec(
        c,
        "const row = document.querySelector('tbody').rows[1]; row.querySelector('[role=menu]').remove(); \
         row.querySelector('button').removeAttribute('aria-expanded'); row.cells[2].textContent = '$0.00'; return true",
    )
    .await;
    let v = run(&server, &page, json!([{"command": "snapshot", "diff": true}])).await;
    let closed = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(
        closed.contains("+ cell \"$0.00\" in \"#1002 Alan Turing $0.00 Refund\"")
            && closed.contains("- cell \"$75.50\" in \"#1002 Alan Turing $75.50 Refund\"")
            && !closed.contains("row"),
        "{v}"
    );
});

chromium_test!(a_cut_line_counts_what_paging_finds, Axum, |c, server| {
    // The budgeted walk counts the run it skips; items that make no node (empty, not displayed,
    // holding only whitespace, a comment, an empty element or a hidden one) are not counted, so the
    // cut line's number and the step's `cut` are what paging on returns. Items that differ from
    // the run are walked, not counted.
    for (fixture, total) in [("emptytail", 1400), ("firsthidden", 2300)] {
        cut_line_counts_what_paging_finds_on(c, &server, fixture, total).await;
    }
});

async fn cut_line_counts_what_paging_finds_on(c: &Client, server: &Server, fixture: &str, total: usize) {
    let page = open(c, server, &format!("/snapshot/{fixture}.html")).await;
    let v = run(server, &page, json!([{"command": "snapshot"}])).await;
    let text = v["steps"][0]["result"].as_str().expect("a snapshot").to_owned();
    let cut_line = text
        .lines()
        .find(|l| l.trim_start().starts_with('…'))
        .expect("a cut line");
    let said: usize = cut_line.trim_start()["… ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.replace(',', "").parse().ok())
        .expect("a count");
    assert_eq!(v["steps"][0]["cut"], json!(said), "{v}");
    // Each item that shows is one listitem with a button or a link named "Item …".
    let items = |t: &str| t.matches("button \"Item ").count() + t.matches("link \"Item ").count();
    let shown = items(&text);
    let (mut found, mut next) = (0, Some(cut_step(cut_line)));
    while let Some(step) = next.take() {
        let v = run(server, &page, json!([step])).await;
        let t = v["steps"][0]["result"].as_str().expect("a page");
        found += items(t);
        next = t.lines().find(|l| l.trim_start().starts_with('…')).map(cut_step);
    }
    assert_eq!(said, found, "{fixture}: the cut line said {said}, paging found {found}");
    assert_eq!(shown + found, total, "{fixture}: every displayed item once");
}

/// The Rust API's options for a view given as the step's JSON fields.
fn snapshot_options(client: &str, view: &Value) -> browser_agent_core::SnapshotOptions {
    let mut o = browser_agent_core::SnapshotOptions::new().client(client);
    let whole = |v: &Value| u32::try_from(v.as_u64().expect("a whole number")).expect("fits u32");
    for (name, v) in view.as_object().expect("a view") {
        o = match name.as_str() {
            "ref" => o.scope(v.as_str().expect("a ref")),
            "offset" => o.offset(whole(v)),
            "limit" => o.limit(whole(v)),
            "filter" => o.filter(v.as_str().expect("a text")),
            "viewport" => o.viewport(v.as_bool().expect("a flag")),
            "budget" => o.budget(whole(v)),
            other => panic!("no option for {other:?}"),
        };
    }
    o
}

async fn one_view_on_every_surface_case(c: &Client, server: &Server) {
    // Each view of a `snapshot` step answers the same text over `/run`, `GET /snapshot`,
    // `POST /snapshot`, the Rust API and MCP's `browser_snapshot`, and a bad one the same refusal.
    let id = open(c, server, "/snapshot/biglist.html").await;
    let v = run(server, &id, json!([{"command": "snapshot"}])).await;
    let head = v["steps"][0]["result"].as_str().expect("a snapshot").to_owned();
    let list = cut_step(head.lines().last().expect("a cut line"))["ref"]
        .as_str()
        .expect("the list's ref")
        .to_owned();
    let views = [
        json!({}),
        json!({"ref": list, "offset": 10, "limit": 5}),
        json!({"ref": list, "offset": 1997}),
        json!({"offset": 1, "limit": 1}),
        json!({"filter": "item 1999"}),
        json!({"viewport": true}),
        json!({"budget": 600}),
        json!({"ref": list, "budget": 600, "filter": "Item 7"}),
    ];
    let mcp = |args: Value| mcp_tool(server, "browser_snapshot", args);
    for view in views {
        let with = |name: &str, value: Value| {
            let mut v = view.clone();
            v[name] = value;
            v
        };
        let v = run(server, &id, json!([with("command", json!("snapshot"))])).await;
        let by_run = v["steps"][0]["result"]
            .as_str()
            .unwrap_or_else(|| panic!("{view}: {v}"))
            .to_owned();
        let query: String = view
            .as_object()
            .expect("a view")
            .iter()
            .map(|(k, v)| {
                format!(
                    "&{k}={}",
                    v.as_str().map_or(v.to_string(), str::to_owned).replace(' ', "%20")
                )
            })
            .collect();
        let (status, body) = http_get(server.addr, &format!("{PREFIX}/snapshot?client={id}{query}"));
        assert_eq!(status, 200, "{view}: {body}");
        let by_get: Value = serde_json::from_str(&body).expect("JSON");
        let (status, body) = http_post_json(
            server.addr,
            &format!("{PREFIX}/snapshot"),
            &with("client", json!(id)).to_string(),
        );
        assert_eq!(status, 200, "{view}: {body}");
        let by_post: Value = serde_json::from_str(&body).expect("JSON");
        let by_api = server
            .agent
            .snapshot(snapshot_options(&id, &view))
            .await
            .unwrap_or_else(|e| panic!("{view}: {e}"));
        let by_mcp = mcp(with("client", json!(id)));
        let mcp_text = by_mcp["content"][0]["text"].as_str().expect("text content");
        assert_eq!(by_get["snapshot"], by_run, "{view}: GET /snapshot");
        assert_eq!(by_post["snapshot"], by_run, "{view}: POST /snapshot");
        // What the step says about the view (how much the budget cut, whether it is scoped), too.
        for field in ["cut", "scoped"] {
            let step = &v["steps"][0][field];
            assert_eq!((&by_get[field], &by_post[field]), (step, step), "{view}: {field}");
            assert_eq!(
                by_api.steps[0].other.get(field).unwrap_or(&Value::Null),
                step,
                "{view}: {field}"
            );
        }
        assert_eq!(
            by_api.steps[0].result_str(),
            Some(by_run.as_str()),
            "{view}: the Rust API"
        );
        assert_eq!(mcp_text, format!("page {id}:\n{}\n", by_run.trim_end()), "{view}: MCP");
    }
    // A bad view: the same refusal everywhere, and nothing runs in the page.
    let want = "step 1 (nothing ran): invalid offset -1: expected a whole number of children to skip, 0 or more";
    let (status, body) = run_raw(
        server,
        json!({"client": id, "steps": [{"command": "snapshot", "offset": -1}]}),
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (400, Some(want)), "{body}");
    let (status, body) = http_post_json(
        server.addr,
        &format!("{PREFIX}/snapshot"),
        &json!({"client": id, "offset": -1}).to_string(),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains(want), "{body}");
    let (status, body) = http_get(server.addr, &format!("{PREFIX}/snapshot?client={id}&offset=-1"));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains(want), "{body}");
    // The Rust API's options are typed (no negative offset): its bad view is a contradiction.
    let bad_api = browser_agent_core::SnapshotOptions::new()
        .client(id.clone())
        .full(true)
        .budget(600);
    let e = server.agent.snapshot(bad_api).await.expect_err("refused");
    assert_eq!(
        e.to_string(),
        "step 1 (nothing ran): full and budget contradict each other: full means no budget"
    );
    let by_mcp = mcp(json!({"client": id, "offset": -1}));
    assert_eq!(by_mcp["isError"], true, "{by_mcp}");
    assert!(
        by_mcp["content"][0]["text"].as_str().is_some_and(|t| t.contains(want)),
        "{by_mcp}"
    );
}

async fn goldens(c: &Client, server: &Server) -> Vec<Figure> {
    let mut figures = Vec::new();
    let mut failures = Vec::new();
    for &name in FIXTURES {
        let id = open(c, server, &format!("/snapshot/{name}.html")).await;
        let text = snapshot(server, &id).await;
        let walk_ms = exec(c, "return window.__browserAgent.walkMs")
            .await
            .as_f64()
            .unwrap_or(-1.0);
        figures.push(Figure {
            name,
            lines: text.lines().count(),
            chars: text.chars().count(),
            walk_ms,
        });
        let text = normalize(&text, server);
        let shown = if name == "biglist" {
            summarize_long(&text)
        } else {
            text.clone()
        };
        if let Err(report) = check_golden(name, &shown) {
            failures.push(report);
        }
        // Every line keeps the grammar: indent of two spaces, then `role "name" [attr]… [ref=…]` or `"text"`.
        for line in text.lines() {
            let body = line.trim_start_matches(' ');
            assert_eq!((line.len() - body.len()) % 2, 0, "{name}: odd indent: {line:?}");
            assert!(!body.is_empty(), "{name}: empty line");
        }
        if name == "biglist" {
            // The default snapshot is cut to its budget (8,000 tokens); `full` walks and returns
            // everything. The first walk meets 4,000 new elements (refs are made); later walks
            // find them. A 2-core machine busy with builds adds noise: the best of three walks is
            // reported beside the first.
            let mut best = walk_ms;
            for _ in 0..2 {
                snapshot(server, &id).await;
                best = best.min(walk_time(c).await);
            }
            figures.push(Figure {
                name: "biglist (best of 3)",
                lines: text.lines().count(),
                chars: text.chars().count(),
                walk_ms: best,
            });
            let mut full = String::new();
            let mut best_full = f64::MAX;
            for i in 0..3 {
                // (Read before the batch's own final snapshot, which walks the default view again.)
                let v = run(
                    server,
                    &id,
                    json!([{ "command": "snapshot", "full": true }, { "command": "evaluate", "script": "window.__browserAgent.walkMs" }]),
                )
                .await;
                full = v["steps"][0]["result"].as_str().expect("full snapshot").to_owned();
                let ms = v["steps"][1]["result"].as_f64().unwrap_or(-1.0);
                if i == 0 {
                    figures.push(Figure {
                        name: "biglist full (first)",
                        lines: full.lines().count(),
                        chars: full.chars().count(),
                        walk_ms: ms,
                    });
                }
                best_full = best_full.min(ms);
            }
            figures.push(Figure {
                name: "biglist full (best of 3)",
                lines: full.lines().count(),
                chars: full.chars().count(),
                walk_ms: best_full,
            });
            assert_eq!(
                full.matches("checkbox \"Item ").count(),
                2000,
                "every checkbox of the list"
            );
            assert_eq!(
                full.matches("button \"Remove\"").count(),
                2000,
                "every button of the list"
            );
            assert!(
                full.chars().count().div_ceil(4) <= 50_000,
                "the full snapshot: {} chars",
                full.len()
            );
            assert!(
                text.chars().count().div_ceil(4) <= 8_000,
                "the default snapshot: {} chars",
                text.len()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    figures
}

/// The walk time the page recorded for its last snapshot.
async fn walk_time(c: &Client) -> f64 {
    exec(c, "return window.__browserAgent.walkMs")
        .await
        .as_f64()
        .unwrap_or(-1.0)
}

/// The ref of the line just before the first line that contains `needle` (a todo's checkbox is
/// unnamed, its text follows it).
fn ref_before(text: &str, needle: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"));
    assert!(i > 0, "{needle:?} is on the first line");
    ref_in(lines[i - 1], "[ref=")
}

fn ref_number(r: &str) -> u64 {
    r.rsplit('e').next().and_then(|n| n.parse().ok()).expect("ref number")
}

async fn refs_stay_with_their_elements_case(c: &Client, server: &Server) {
    let id = open(c, server, "/snapshot/todo.html").await;
    let first = snapshot(server, &id).await;
    let walk = ref_before(&first, "\"Walk the dog\"");
    let report = ref_before(&first, "\"Write");
    let milk = ref_before(&first, "\"Buy milk\"");
    let max_before = first
        .lines()
        .filter(|l| l.contains("[ref="))
        .map(|l| ref_number(&ref_in(l, "[ref=")))
        .max()
        .unwrap();

    // Unrelated changes: a new item at the top, the first item removed.
    exec(
        c,
        r#"const list = document.querySelector('.todo-list');
           const li = document.createElement('li');
           li.innerHTML = '<div class="view"><input class="toggle" type="checkbox"><label>Call mom</label></div>';
           list.prepend(li);
           list.querySelector('li.completed').remove();"#,
    )
    .await;
    let second = snapshot(server, &id).await;
    assert_eq!(ref_before(&second, "\"Walk the dog\""), walk, "{second}");
    assert_eq!(ref_before(&second, "\"Write"), report, "{second}");
    assert!(!second.contains("Buy milk"), "{second}");
    let new = ref_before(&second, "\"Call mom\"");
    assert!(
        ref_number(&new) > max_before,
        "a new element gets a new number: {new} after {max_before}"
    );

    // The ref of the removed element fails loudly and names what is there now.
    let gone = exec(
        c,
        &format!("try {{ window.__browserAgent.ref('{milk}'); return 'resolved'; }} catch (e) {{ return e.message; }}"),
    )
    .await;
    let gone = gone.as_str().unwrap_or("");
    assert!(gone.contains("no longer on the page"), "{gone}");
    assert!(gone.contains("[ref="), "the error lists refs there now: {gone}");
    let same = exec(
        c,
        &format!("return window.__browserAgent.ref('{walk}').nextElementSibling.textContent"),
    )
    .await;
    assert_eq!(same, "Walk the dog");
    // Taken out and put back: the same element keeps its ref.
    exec(
        c,
        "const list = document.querySelector('.todo-list'); list.append(list.firstElementChild);",
    )
    .await;
    let third = snapshot(server, &id).await;
    assert_eq!(ref_before(&third, "\"Call mom\""), new, "{third}");
}

async fn controlled_input_rerender_gets_new_refs_case(c: &Client, server: &Server) {
    let id = open(c, server, "/snapshot/react.html").await;
    let before = snapshot(server, &id).await;
    let input_ref = ref_in(&before, "textbox \"Filter documents\"");
    c.find(Locator::Css("#q")).await.unwrap().send_keys("re").await.unwrap();
    let after = snapshot(server, &id).await;
    // The app re-renders the whole tree on every keystroke: new elements, new refs, never old ones.
    let line = after
        .lines()
        .find(|l| l.contains("textbox \"Filter documents\""))
        .unwrap();
    assert!(line.contains("[value=\"re\"]"), "{after}");
    assert!(
        ref_number(&ref_in(&after, "textbox \"Filter")) > ref_number(&input_ref),
        "{after}"
    );
    assert!(
        after.contains("Quarterly report") && after.contains("Budget review") && !after.contains("Hiring plan"),
        "{after}"
    );
    assert!(after.contains("\"Showing 2 of 4\""), "{after}");
}

async fn batch_order_errors_and_logs_case(c: &Client, server: &Server) {
    let id = open(c, server, "/snapshot/table.html").await;
    // A request just before the batch: the snapshot waits until 200 ms after it ended (network
    // idle), and the ticks logged meanwhile come back with the batch.
    exec(
        c,
        "window.__ticks = 0; window.__timer = setInterval(() => console.log('tick ' + (++window.__ticks)), 20); fetch(location.href);",
    )
    .await;
    let v = run(
        server,
        &id,
        json!([{ "command": "snapshot" }, { "command": "click", "ref": "e999" }, { "command": "snapshot" }]),
    )
    .await;
    exec(c, "clearInterval(window.__timer)").await;
    assert_eq!(v["event"], "browser-completed", "{v}");
    let steps = v["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "the batch stops at the first failing step: {v}");
    assert_eq!(steps[0]["index"], 0);
    assert_eq!(steps[0]["command"], "snapshot");
    assert!(
        steps[0]["result"]
            .as_str()
            .unwrap_or("")
            .contains("table \"Recent orders\""),
        "{v}"
    );
    assert!(
        steps[1]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("There is no [ref=e999] on this page")),
        "{v}"
    );
    assert!(steps[1]["elapsed"].is_number(), "{v}");
    assert!(
        v["snapshot"].as_str().is_some_and(|s| !s.is_empty()),
        "the final snapshot is always there: {v}"
    );
    assert!(v["duration"].as_u64().is_some(), "{v}");
    let logs = v["logs"].as_array().expect("logs");
    // The stored entries, as GET /console shows them: host `seq`, the page's as `clientSeq`, a
    // one-line `text` and a `level`, and the type's own fields (console arguments in `args`).
    let ticks: Vec<&Value> = logs
        .iter()
        .filter(|e| e["type"] == "console" && e["args"][0].as_str().is_some_and(|t| t.starts_with("tick ")))
        .collect();
    assert!(
        !ticks.is_empty(),
        "the logs recorded while the batch ran (it waits for network idle: 200 ms after the fetch): {v}"
    );
    let console = server.console(&format!("limit=500&client={id}"));
    let stored = console["logs"].as_array().expect("console logs");
    for e in &ticks {
        assert_eq!(e["clientId"], id.as_str(), "{e}");
        assert!(e["clientSeq"].is_u64(), "{e}");
        assert_eq!(e["text"], e["args"][0], "{e}");
        assert_eq!(e["level"], "log", "{e}");
        // (`ago` is measured from each answer's own moment.)
        let timeless = |v: &Value| {
            let mut v = v.clone();
            if let Some(o) = v.as_object_mut() {
                o.remove("ago");
            }
            v
        };
        assert!(
            stored.iter().any(|s| timeless(s) == timeless(e)),
            "already in /console, with the same host seq: {e}"
        );
    }
}

async fn snapshot_route_case(c: &Client, server: &Server) {
    let id = open(c, server, "/snapshot/shadow.html").await;
    let (status, body) = http_get(server.addr, &format!("{PREFIX}/snapshot?client={id}"));
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let text = v["snapshot"].as_str().expect("snapshot text");
    assert!(text.contains("switch \"Dark mode\" [checked]"), "{text}");
    exec(c, "document.querySelector('x-card button').textContent = 'Upgraded'").await;
    let (status, body) = http_get(server.addr, &format!("{PREFIX}/snapshot?client={id}&diff=1"));
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let diff = v["snapshot"].as_str().expect("diff text");
    assert!(
        diff.starts_with("~ button \"Upgraded\""),
        "only the changed line: {diff}"
    );
}

/// The `(snapshot {…})` a cut line says to run, as a step.
fn cut_step(line: &str) -> Value {
    let at = line
        .find("(snapshot ")
        .unwrap_or_else(|| panic!("not a cut line: {line:?}"))
        + 10;
    let mut step: Value = serde_json::from_str(line[at..].trim_end_matches(')')).expect("the cut line's JSON");
    step["command"] = json!("snapshot");
    step
}

/// The default (budgeted) snapshot walks the head of a long list and counts the rest of each run
/// of similar items instead of walking it; what it answers is what a whole walk cut to the same
/// budget answers: the same lines, and a cut line counting exactly the items a whole walk shows.
async fn a_budgeted_walk_stops_where_the_cut_is_case(c: &Client, server: &Server) {
    // A fresh page load: the default snapshot is the first walk, so refs are numbered only for
    // what it visited.
    let id = open(c, server, "/snapshot/biglist-mixed.html").await;
    let v = run(server, &id, json!([{ "command": "snapshot" }])).await;
    let lazy = v["steps"][0]["result"].as_str().expect("snapshot").to_owned();
    let cut = v["steps"][0]["cut"].as_u64().expect("the step says it was cut") as usize;
    let list_ref = lazy
        .lines()
        .find_map(|l| l.strip_prefix("list [ref=").and_then(|r| r.strip_suffix(']')))
        .unwrap_or_else(|| panic!("a ref'd list in\n{lazy}"))
        .to_owned();
    let shown = lazy.matches("link \"Order ").count();
    // Every item the walk visited has a ref (two per item: its link); the list's number comes
    // after them, so the walk stopped near where the budget cut, far before item 1,500.
    let list_number: usize = list_ref.trim_start_matches('e').parse().expect("a number");
    assert!(
        list_number > shown && list_number < 1_000,
        "the walk visited {list_number} elements for {shown} shown items"
    );
    // The whole list, walked whole.
    let v = run(server, &id, json!([{ "command": "snapshot", "full": true }])).await;
    let full = v["steps"][0]["result"].as_str().expect("full snapshot").to_owned();
    let items = full.matches("link \"Order ").count();
    // (`hidden` does not hide these: the page's `.item { display: flex }` wins over it, as in
    // any browser; the walk must count them, though a run of similar items stops at them.)
    let hidden = (1..=1500)
        .filter(|i| i % 97 != 0 && (i % 89 == 0 || i % 83 == 0 || i % 79 == 0))
        .count();
    assert_eq!(items, 1500 - hidden, "the whole walk leaves the hidden items out");
    assert!(full.contains("\"loose text\""), "{}", &full[full.len() - 400..]);
    // Its cut line counts what the whole walk has after the shown items: every visible item and
    // the loose text (so the role is "nodes"), not the hidden ones.
    let last = lazy
        .lines()
        .find(|l| l.trim_start().starts_with("… "))
        .unwrap_or_else(|| panic!("a cut line in\n{lazy}"))
        .trim();
    let rest = items - shown + 1;
    let want = format!(
        "… {} more nodes (snapshot {{\"ref\":\"{list_ref}\",\"offset\":{shown}}})",
        grouped(rest)
    );
    assert_eq!(last, want, "the cut line counts the rest as a whole walk has it");
    assert_eq!(cut, rest, "the step's cut count");
    // Now every element is numbered (the full walk), so the lazy walk's answer must be the whole
    // walk's cut to the budget, line for line: `full`'s lines up to the first item not shown, the
    // cut line, then what follows the list.
    let v = run(server, &id, json!([{ "command": "snapshot" }])).await;
    let again = v["steps"][0]["result"].as_str().expect("snapshot");
    assert_eq!(v["snapshot"], "(no changes)", "the same view, diffed: {v}");
    let lines: Vec<&str> = full.lines().collect();
    let first_gone = format!("link \"Order {}\"", nth_order(&full, shown + 1));
    let at = lines
        .iter()
        .position(|l| l.contains(&first_gone))
        .expect("the first item not shown")
        - 1;
    let list_at = lines.iter().position(|l| l.starts_with("list")).expect("the list");
    let after = lines[list_at + 1..]
        .iter()
        .position(|l| !l.starts_with(' '))
        .map_or(lines.len(), |p| list_at + 1 + p);
    let mut want: Vec<String> = lines[..at].iter().map(|l| l.to_string()).collect();
    // (A container that is not cut shows no ref; the cut one shows the ref its cut line names.)
    want[list_at] = format!("list [ref={list_ref}]");
    want.push(format!("  {last}"));
    want.extend(lines[after..].iter().map(|l| l.to_string()));
    assert_eq!(
        again,
        want.join("\n"),
        "a lazy walk answers what a whole walk cut to the budget does"
    );
    // And the rest, as the line says, starts with the next visible item.
    let v = run(server, &id, json!([cut_step(last)])).await;
    let page2 = v["steps"][0]["result"].as_str().expect("scoped snapshot");
    let next = nth_order(&full, shown + 1);
    assert!(page2.contains(&format!("link \"Order {next}\"")), "{page2}");
}

/// The number of the `n`th (1-based) order link of a snapshot.
fn nth_order(text: &str, n: usize) -> usize {
    text.match_indices("link \"Order ")
        .nth(n - 1)
        .and_then(|(at, m)| text[at + m.len()..].split('"').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no order link #{n}"))
}

/// `n` with thousands separated by commas, as cut lines write it.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

async fn budget_cuts_and_scoped_snapshots_case(c: &Client, server: &Server) {
    let id = open(c, server, "/snapshot/biglist.html").await;
    // The default snapshot: within 8,000 tokens, the step says how much it left out, and the last
    // line says how to get the rest.
    let v = run(server, &id, json!([{ "command": "snapshot" }])).await;
    let text = v["steps"][0]["result"].as_str().expect("snapshot").to_owned();
    assert!(text.chars().count().div_ceil(4) <= 8_000, "{} chars", text.len());
    let cut = v["steps"][0]["cut"].as_u64().expect("the step says it was cut");
    let last = text.lines().last().unwrap().trim();
    assert!(
        last.starts_with("… ") && last.contains(" more listitem (snapshot {\"ref\":\"e"),
        "{last}"
    );
    assert_eq!(
        v["steps"][0]["scoped"],
        Value::Null,
        "the default view is not scoped: {v}"
    );
    let shown = text.matches("checkbox \"Item ").count();
    assert_eq!(cut as usize, 2000 - shown, "{last}");
    // The rest, as the line says: the list's next children.
    let next = cut_step(last);
    assert_eq!(next["offset"].as_u64(), Some(shown as u64), "{last}");
    let v = run(server, &id, json!([next.clone()])).await;
    let page2 = v["steps"][0]["result"].as_str().expect("scoped snapshot");
    assert!(
        page2.starts_with(&format!("list [ref={}]", next["ref"].as_str().unwrap())),
        "{page2}"
    );
    assert!(page2.contains(&format!("checkbox \"Item {}\"", shown + 1)), "{page2}");
    assert!(!page2.contains(&format!("checkbox \"Item {shown}\"")), "{page2}");
    assert_eq!(v["steps"][0]["scoped"], true, "{v}");
    assert_eq!(
        v["snapshot"], "(no changes)",
        "a scoped snapshot neither resets nor corrupts the page's diff baseline: {v}"
    );
    // A window of five.
    let mut five = next.clone();
    five["offset"] = json!(10);
    five["limit"] = json!(5);
    let v = run(server, &id, json!([five])).await;
    let w = v["steps"][0]["result"].as_str().unwrap();
    assert_eq!(w.matches("checkbox \"Item ").count(), 5, "{w}");
    assert!(
        w.contains("checkbox \"Item 11\"") && w.contains("checkbox \"Item 15\""),
        "{w}"
    );
    assert!(
        w.lines()
            .last()
            .is_some_and(|l| l.trim().starts_with("… 1,985 more listitem (snapshot {\"ref\":\"")
                && l.ends_with(",\"offset\":15})")),
        "{w}"
    );
    // The same over GET /snapshot.
    let (status, body) = http_get(
        server.addr,
        &format!(
            "{PREFIX}/snapshot?client={id}&ref={}&offset=1997",
            next["ref"].as_str().unwrap()
        ),
    );
    assert_eq!(status, 200, "{body}");
    let got: Value = serde_json::from_str(&body).unwrap();
    let tail = got["snapshot"].as_str().unwrap();
    assert_eq!(tail.matches("checkbox \"Item ").count(), 3, "{tail}");
    assert!(tail.contains("checkbox \"Item 2000\""), "{tail}");
    let (status, body) = http_get(server.addr, &format!("{PREFIX}/snapshot?client={id}&offset=x"));
    assert_eq!(status, 400, "{body}");
    // Searched: only the matching branch, with its ancestors.
    let v = run(server, &id, json!([{ "command": "snapshot", "filter": "item 1999" }])).await;
    let found = v["steps"][0]["result"].as_str().unwrap();
    assert!(found.contains("checkbox \"Item 1999\""), "{found}");
    assert_eq!(found.matches("checkbox").count(), 1, "{found}");
    assert!(found.starts_with("list"), "{found}");
    // On screen: the first items, not the last.
    let v = run(server, &id, json!([{ "command": "snapshot", "viewport": true }])).await;
    let seen = v["steps"][0]["result"].as_str().unwrap();
    assert!(
        seen.contains("checkbox \"Item 1\"") && !seen.contains("Item 2000"),
        "{seen}"
    );
    assert!(seen.matches("checkbox").count() < 200, "{seen}");
    // Diffs still compare the default view: a change in it shows, nothing else does.
    exec(c, "document.getElementById('c2').click()").await;
    let v = run(server, &id, json!([{ "command": "snapshot", "diff": true }])).await;
    let d = v["steps"][0]["result"].as_str().unwrap();
    assert!(d.starts_with("~ checkbox \"Item 2\" [checked] [ref="), "{d}");
    assert_eq!(d.lines().count(), 1, "{d}");
    // A view with nothing in it says so (not "(empty page)", which would mean the page did not load).
    let v = run(server, &id, json!([{ "command": "snapshot", "filter": "zzzz" }])).await;
    assert_eq!(v["steps"][0]["result"], "(nothing matches \"zzzz\")", "{v}");
    // Past the end of the page's or a list's children: where the end is.
    let v = run(server, &id, json!([{ "command": "snapshot", "offset": 888 }])).await;
    assert_eq!(
        v["steps"][0]["result"], "… offset 888 is past the end (2 in all)",
        "{v}"
    );
    let mut past = next.clone();
    past["offset"] = json!(2_500);
    let v = run(server, &id, json!([past])).await;
    assert_eq!(
        v["steps"][0]["result"],
        format!(
            "list [ref={}]\n  … offset 2,500 is past the end (2,000 in all)",
            next["ref"].as_str().unwrap()
        ),
        "{v}"
    );
    // An unknown ref fails the step, saying so.
    let v = run(server, &id, json!([{ "command": "snapshot", "ref": "e99999" }])).await;
    assert!(
        v["steps"][0]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("There is no [ref=e99999] on this page")),
        "{v}"
    );
}

async fn navigating_mid_poll_leaves_no_stuck_connection_case(c: &Client, server: &Server) {
    // Each page load starts a long-poll; navigating must abort it. Chromium allows 6 connections per
    // host: polls left hanging would stall the later pages' requests.
    for i in 0..8 {
        let page = if i % 2 == 0 {
            "/snapshot/table.html"
        } else {
            "/snapshot/todo.html"
        };
        open(c, server, page).await;
    }
    let id = open(c, server, "/snapshot/table.html").await;
    let started = Instant::now();
    let v = run(server, &id, json!([{ "command": "snapshot" }])).await;
    assert_eq!(v["event"], "browser-completed", "{v}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the new page took the batch at once ({:?})",
        started.elapsed()
    );
    // Without a client the batch goes to the page that is open now.
    let v = run_timed(server, None, json!([{ "command": "snapshot" }])).await.0;
    assert_eq!(v["clientId"], id.as_str(), "{v}");
    // Back/forward: the page restored from the cache polls again.
    c.goto(&server.url("/snapshot/todo.html")).await.unwrap();
    let todo = client_id(c, server).await;
    c.back().await.unwrap();
    let back = client_id(c, server).await;
    // Restored from the back/forward cache, the page said it left (pagehide) and comes back with
    // its next heartbeat or poll; reloaded instead, it is a new page.
    wait_for_page(server, "the page back to be alive", |p| {
        p["clientId"] == back.as_str() && p["alive"] == true
    })
    .await;
    let v = run(server, &back, json!([{ "command": "snapshot" }])).await;
    assert_eq!(v["event"], "browser-completed", "{v}");
    assert_ne!(todo, back);
}

/// Waits until `GET {prefix}/page` lists a page that `matches`; returns it.
async fn wait_for_page(server: &Server, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
    browser_tests::wait_for(what, Duration::from_secs(15), || {
        let v = server.pages();
        v["pages"].as_array().unwrap().iter().find(|p| matches(p)).cloned()
    })
    .await
}

async fn a_page_that_leaves_is_gone_at_once_case(c: &Client, server: &Server) {
    let id = open(c, server, "/snapshot/table.html").await;
    // A navigating step hands the rest of the batch over; the JSON route starts no client. The
    // batch's own timeout (3 s) bounds the wait for the next page (10 s).
    let (status, v) = run_raw(
        server,
        json!({"steps": [{"command": "navigate", "url": "/api/items"}, {"command": "snapshot"}], "client": id, "timeoutMs": 3_000}),
    )
    .await;
    assert_eq!(status, 503, "{v}");
    let message = v["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with(&format!(
            "The page navigated to {} and no browser-agent client started there within",
            server.url("/api/items")
        )) && message.contains("the steps before it ran: #0 navigate"),
        "{v}"
    );
    assert_eq!(v["steps"][0]["command"], "navigate", "{v}");
    // Its pagehide beacon said it left: no longer alive nor a target, without waiting for the TTL.
    wait_for_page(server, "the page that left to be gone", |p| {
        p["clientId"] == id.as_str() && p["gone"] == true
    })
    .await;
    let (status, v) = run_raw(server, json!({"steps": [{"command": "snapshot"}], "client": id})).await;
    assert_eq!(status, 503, "{v}");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("was closed or navigated away")),
        "{v}"
    );
    let (status, v) = run_raw(server, json!({"steps": [{"command": "snapshot"}]})).await;
    assert_eq!(status, 503, "no page is open in the browser now: {v}");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("No browser connected")),
        "{v}"
    );
}
