//! "What changed" is always true (issue 33, item 3): a batch's answer reports the change from the
//! page *before the batch* to the page after it, even when a `snapshot` step inside the batch took
//! the page whole in between; it never says "(no changes)" of a page the batch changed.

use browser_tests::Framework::Axum;
use browser_tests::{chromium_test, mcp_tool, open, ref_in, run, snapshot};
use serde_json::json;

chromium_test!(
    a_click_then_a_snapshot_answers_what_the_click_changed,
    Axum,
    |c, server| {
        let page = open(c, &server, "/true-diffs.html").await;
        // The baseline: the page as the agent last saw it.
        let before = snapshot(&server, &page).await;
        assert!(before.contains("0 items"), "{before}");
        let add = ref_in(&before, "Add item");

        // `[click that changes the page, snapshot]`: the step shows the page whole, and the batch's
        // own answer still says what the click changed since before the batch.
        let v = run(
            &server,
            &page,
            json!([{"command": "click", "ref": add}, {"command": "snapshot"}]),
        )
        .await;
        let step = v["steps"][1]["result"].as_str().expect("the step's snapshot");
        assert!(step.contains("Item 1") && step.contains("1 item"), "{v}");
        let shown = v["snapshot"].as_str().expect("the batch's snapshot");
        assert_ne!(shown, "(no changes)", "the click changed the page: {v}");
        assert!(
            shown.contains("Item 1") && shown.contains("1 item"),
            "the diff shows the change: {shown}"
        );

        // The same over MCP, as an agent reads it.
        let result = mcp_tool(
            &server,
            "browser_run",
            json!({"client": page, "steps": [{"command": "click", "ref": add}, {"command": "snapshot"}]}),
        );
        let text = result["content"][0]["text"].as_str().expect("a text answer").to_owned();
        assert!(!text.contains("(no changes)"), "{text}");
        let changes = text
            .split("changes:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("no changes section in\n{text}"));
        assert!(changes.contains("Item 2") && changes.contains("2 items"), "{text}");

        // A batch that changes nothing says so, and only then.
        let v = run(&server, &page, json!([{"command": "snapshot"}])).await;
        assert_eq!(v["snapshot"], "(no changes)", "{v}");
    }
);

chromium_test!(
    a_list_redrawn_after_each_change_keeps_its_refs_and_its_diff_says_which_row,
    Axum,
    |c, server| {
        let page = open(c, &server, "/redrawn-list.html").await;
        let before = snapshot(&server, &page).await;
        // Each row: checkbox "✔", its text, button "✖"; the second row's button deletes it.
        let lines: Vec<&str> = before.lines().collect();
        let at = |text: &str, role: &str| {
            let i = lines.iter().position(|l| l.contains(text)).expect("the row's text");
            let pick = if role == "checkbox" { lines[i - 1] } else { lines[i + 1] };
            assert!(pick.contains(role), "{before}");
            ref_in(pick, role)
        };
        let (milk_box, milk_x) = (at("Buy milk", "checkbox"), at("Buy milk", "button"));
        let dog_x = at("Walk the dog", "button");

        // Every change redraws every row: new elements, which keep the refs of the ones they
        // replaced, so the diff is the change alone, and each glyph says its row.
        let v = run(
            &server,
            &page,
            json!([{"command": "click", "ref": dog_x}, {"command": "check", "ref": milk_box}]),
        )
        .await;
        assert_eq!(
            v["steps"][1]["matched"].as_str().unwrap(),
            format!("checkbox \"✔\" [ref={milk_box}] in \"Buy milk\""),
            "{v}"
        );
        let diff = v["snapshot"].as_str().expect("a diff");
        assert!(
            diff.contains(&format!("~ checkbox \"✔\" [checked] [ref={milk_box}] in \"Buy milk\"")),
            "the checked box is the same ref, changed, with its row: {diff}"
        );
        assert!(
            diff.contains(&format!("- button \"✖\" [ref={dog_x}] in \"Walk the dog\"")),
            "{diff}"
        );
        assert!(
            !diff.contains(&format!("[ref={milk_x}]")),
            "the kept row's button did not change: {diff}"
        );
        assert!(
            !diff.lines().any(|l| l.starts_with('+') && l.contains("[ref=")),
            "no row's control reads as new: {diff}"
        );
        // The interaction log says which row's glyph was clicked.
        let clicks: Vec<&str> = v["logs"]
            .as_array()
            .expect("logs")
            .iter()
            .filter_map(|l| l["target"].as_str())
            .collect();
        assert!(clicks.contains(&"button \"✖\" in \"Walk the dog\""), "{clicks:?}");
        assert!(clicks.contains(&"checkbox \"✔\" in \"Buy milk\""), "{clicks:?}");

        // The refs of the last snapshot still act on their rows.
        let v = run(&server, &page, json!([{"command": "click", "ref": milk_x}])).await;
        let diff = v["snapshot"].as_str().expect("a diff");
        assert!(
            diff.contains(&format!("- button \"✖\" [ref={milk_x}] in \"Buy milk\"")),
            "{diff}"
        );
        let after = snapshot(&server, &page).await;
        assert!(!after.contains("Buy milk") && after.contains("Write report"), "{after}");
    }
);

chromium_test!(
    a_board_of_div_cards_redrawn_keeps_its_refs_and_its_diff_says_which_card,
    Axum,
    |c, server| {
        let page = open(c, &server, "/redrawn-board.html").await;
        let before = snapshot(&server, &page).await;
        // Each card: its text, button "→", button "×" (siblings: the cards are plain <div>s).
        let lines: Vec<&str> = before.lines().collect();
        let at = |text: &str, glyph: &str| {
            let i = lines.iter().position(|l| l.contains(text)).expect("the card's text");
            let pick = lines[i + 1..i + 3]
                .iter()
                .find(|l| l.contains(glyph))
                .unwrap_or_else(|| panic!("{glyph} after {text} in\n{before}"));
            ref_in(pick, "button")
        };
        let (fix_move, fix_x) = (at("Fix login bug", "→"), at("Fix login bug", "×"));
        let notes_x = at("Write release notes", "×");

        // Moving a card redraws both columns: new elements, which keep the refs of the ones they
        // replaced (the card's text is the same in its new column), so the diff is the move alone.
        let v = run(&server, &page, json!([{"command": "click", "ref": fix_move}])).await;
        assert_eq!(
            v["steps"][0]["matched"].as_str().unwrap(),
            format!("button \"→\" [ref={fix_move}] in \"Fix login bug\""),
            "{v}"
        );
        let diff = v["snapshot"].as_str().expect("a diff");
        assert!(
            !diff.lines().any(|l| l.starts_with(['+', '-']) && l.contains("[ref=")),
            "no card's control reads as new or gone: {diff}"
        );
        assert!(diff.contains("To do 1 · Done 2"), "{diff}");
        assert!(
            diff.contains("\"Fix login bug\""),
            "the card that moved is named: {diff}"
        );

        // The refs of the first snapshot still act on their cards; a deleted card's glyphs say
        // which card they were.
        let v = run(&server, &page, json!([{"command": "click", "ref": notes_x}])).await;
        let diff = v["snapshot"].as_str().expect("a diff");
        assert!(
            diff.contains(&format!("- button \"×\" [ref={notes_x}] in \"Write release notes\"")),
            "{diff}"
        );
        assert!(!diff.contains(&format!("[ref={fix_x}]")), "{diff}");
        let v = run(&server, &page, json!([{"command": "click", "ref": fix_x}])).await;
        let diff = v["snapshot"].as_str().expect("a diff");
        assert!(
            diff.contains(&format!("- button \"×\" [ref={fix_x}] in \"Fix login bug\"")),
            "{diff}"
        );
        let after = snapshot(&server, &page).await;
        assert!(
            after.contains("Set up CI") && !after.contains("Fix login bug"),
            "{after}"
        );
    }
);
