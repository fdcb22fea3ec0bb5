//! The acting commands in real headless Chromium, driven through the agent API
//! (`POST {prefix}/run`) as a coding agent drives them: each command's effect is read back from the
//! page's own state, and each error message is checked word for word.
//!
//! Fixtures under `fixtures/actions/`: a React-style controlled input (a value tracker on the
//! element, so only the native setter reaches the state), a select, checkboxes, a contenteditable,
//! a button under a cookie banner, a disabled button, a hover-only menu, a long scrolling list, a
//! link to a second page where the batch continues, and a page for the teaching errors.
//!
//! Round-trip times of `click` and `type` (agent POST → answer) are printed, not asserted.

use std::time::Duration;

use browser_tests::Framework::Axum;
use browser_tests::{
    chromium_test, client_id, eval, fails, http_get, http_post_json, ok, open, ref_of, run, run_raw, run_timed,
    snapshot, started_client, Server, PREFIX,
};
use fantoccini::Client;
use serde_json::json;

// Each scenario is its own test, on the binary's shared browser, each with a fresh test app.
chromium_test!(what_a_click_sets_off_lands_before_the_answer, Axum, |c, server| {
    // After a click the client waits for what the page set to run soon (a short timer, a frame it
    // asked for, a timer that asks for a frame) instead of a fixed pause; an animation loop that
    // never stops asking for frames still lets the step end.
    // In a tab of its own, in front: a tab an earlier scenario of this binary left behind did not
    // always get animation frames (no page renders on a frame then, with or without the agent).
    let original = c.window().await.expect("window");
    let tab = c.new_window(true).await.expect("new tab");
    c.switch_to_window(tab.handle.clone()).await.expect("switch");
    let id = open(c, &server, "/actions/settle.html").await;
    for (button, want) in [
        ("Later by timer", "timer ran"),
        ("Later by frame", "frame ran"),
        ("Timer then frame", "chain ran"),
        ("Start the loop", "looping"),
    ] {
        let v = run(&server, &id, json!([{"command": "click", "text": button}])).await;
        assert!(v["steps"][0]["error"].is_null(), "{v}");
        let text = v["snapshot"].as_str().unwrap_or_default();
        assert!(
            text.contains(&format!("\"{want}\"")),
            "{button}: the answer's snapshot shows {want:?}:\n{v}"
        );
    }
    c.close_window().await.expect("close the tab");
    c.switch_to_window(original).await.expect("back");
});
chromium_test!(an_answer_waits_for_the_fade_it_started, Axum, |c, server| {
    // A Bootstrap-style modal fades in and out over 300 ms and ignores clicks meanwhile: the
    // answer shows it open (its end-of-fade text), and the next click is not lost mid-fade.
    let original = c.window().await.expect("window");
    let tab = c.new_window(true).await.expect("new tab");
    c.switch_to_window(tab.handle.clone()).await.expect("switch");
    let id = open(c, &server, "/actions/fade.html").await;
    let v = run(&server, &id, json!([{"command": "click", "text": "Open modal"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    let text = v["snapshot"].as_str().unwrap_or_default();
    assert!(text.contains("\"opened\"") && text.contains("dialog \"Fading\""), "{v}");
    let v = run(&server, &id, json!([{"command": "click", "text": "Dismiss"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    let text = v["snapshot"].as_str().unwrap_or_default();
    assert!(
        text.contains("\"closed again\"") && text.contains("- dialog \"Fading\""),
        "{v}"
    );
    c.close_window().await.expect("close the tab");
    c.switch_to_window(original).await.expect("back");
});
chromium_test!(a_target_the_layout_covers_is_no_overlay_to_close, Axum, |c, server| {
    // Round 8: a side panel the layout put over a table cell was answered "Close it first, e.g.
    // with button "Refund"", a button that submits a refund. A cover in the page's flow has
    // nothing to close: the answer says the layout puts it there, at this viewport.
    let id = open(c, &server, "/actions/layout-cover.html").await;
    let refund = ref_of(&server, &id, "button \"Refund\"").await;
    let e = fails(&server, &id, json!({"command": "click", "ref": refund})).await;
    assert!(
        e.starts_with(&format!("button \"Refund\" [ref={refund}] is covered by aside"))
            && e.contains("; it would get the click: the page's layout puts it over the target at this viewport (")
            && !e.contains("Close"),
        "{e}"
    );
});

chromium_test!(refs_from_before_a_reload_are_refused, Axum, |c, server| {
    // Round 9: a dev server reloads the page after each save, and the new load numbers its refs
    // afresh, so a ref from before would click another element (`e1` was "Settings", then "Remove
    // Sintra"). A batch naming refs on a page loaded again since the last batch is refused before
    // anything runs; any other batch's answer says the page is a new load.
    let id = open(c, &server, "/snapshot/table.html").await;
    let refund = ref_of(&server, &id, "button \"Refund\"").await;
    c.refresh().await.expect("reload");
    let again = client_id(c, &server).await;
    assert_ne!(again, id);
    let (status, v) = run_raw(&server, json!({"steps": [{"command": "click", "ref": refund}]})).await;
    assert_eq!(status, 400, "{v}");
    let error = v["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("step 1 (nothing ran): the page was loaded again ")
            && error.contains(&format!("{refund:?} would name another element now")),
        "{v}"
    );
    let answer = browser_tests::mcp_tool(
        &server,
        "browser_run",
        json!({"steps": [{"command": "click", "text": "Refund", "nth": 0}]}),
    );
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    let second = text.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("(a new page load: the page was loaded again ")
            && second.contains(&format!("after your last batch (on {id})")),
        "{answer}"
    );
    // Once a batch ran on the new load, its refs are the agent's again.
    let refund = ref_of(&server, &again, "button \"Refund\"").await;
    ok(&server, &again, json!({"command": "click", "ref": refund})).await;
});

chromium_test!(form_controls, Axum, |c, server| form_controls_case(c, &server).await);
chromium_test!(pointer_and_keys, Axum, |c, server| pointer_and_keys_case(c, &server)
    .await);
chromium_test!(teaching_errors, Axum, |c, server| teaching_errors_case(c, &server)
    .await);
chromium_test!(shadow_targets, Axum, |c, server| shadow_targets_case(c, &server).await);
chromium_test!(evaluate, Axum, |c, server| evaluate_case(c, &server).await);
chromium_test!(navigation_hands_over, Axum, |c, server| navigation_hands_over_case(
    c, &server
)
.await);
chromium_test!(a_form_submitted_by_its_button_hands_over, Axum, |c, server| {
    form_submitted_by_button_case(c, &server).await
});
chromium_test!(typed_values_are_what_a_person_gets, Axum, |c, server| {
    typed_values_are_what_a_person_gets_case(c, &server).await
});
chromium_test!(
    select_opens_an_aria_combobox_and_clicks_its_option,
    Axum,
    |c, server| {
        // `select` on what component libraries draw instead of a <select> (`fixtures/actions/combobox.html`):
        // it opens the combobox and clicks the option, as a person picks it.
        let id = open(c, &server, "/actions/combobox.html").await;
        let out = |which: &'static str| format!("return document.getElementById('{which}-out').textContent");
        // The options of a box of no size (antd's copy for screen readers) are neither shown nor used.
        let snap = browser_tests::snapshot(&server, &id).await;
        assert!(!snap.contains("london") && !snap.contains("listbox [ref"), "{snap}");

        // A select-only combobox whose list shows two frames after the click and moves into place:
        // exact before partial ("orange" is "Orange", not "Blood orange").
        for (want, chosen) in [("banana", "Banana"), ("orange", "Orange"), ("blood", "Blood orange")] {
            let s = ok(
                &server,
                &id,
                json!({"command": "select", "label": "Fruit", "option": want}),
            )
            .await;
            assert_eq!(s["result"], format!("selected \"{chosen}\""), "{s}");
            assert_eq!(eval(&server, &id, &out("fruit")).await, format!("Fruit: {chosen}"));
        }
        let cherry = fails(
            &server,
            &id,
            json!({"command": "select", "label": "Fruit", "option": "Cherry"}),
        )
        .await;
        assert!(
            cherry.starts_with("option \"Cherry\" [ref=") && cherry.ends_with("] is disabled"),
            "{cherry}"
        );
        // A failed `select` closes the list it opened, with Escape where the list takes it.
        let closed = "return document.getElementById('fruit-list').hidden + ' ' + document.getElementById('fruit').dataset.closed";
        assert_eq!(eval(&server, &id, closed).await, "true escape");
        // A miss says what is there. (The list is labelled "Fruit" too, but `select` means the
        // combobox, and the list opened by one was not open before: a list left open would be.)
        eval(&server, &id, "document.getElementById('fruit').dataset.closed = ''").await;
        let kiwi = fails(
            &server,
            &id,
            json!({"command": "select", "label": "Fruit", "option": "Kiwi"}),
        )
        .await;
        assert_eq!(
        kiwi,
        "No option \"Kiwi\" found. Visible options: \"Apple\", \"Banana\", \"Cherry\", \"Blood orange\", \"Orange\""
    );
        assert_eq!(eval(&server, &id, closed).await, "true escape");

        // An autocomplete that lists nothing until something is typed: the option is typed first.
        let s = ok(
            &server,
            &id,
            json!({"command": "select", "label": "State", "option": "Ohio"}),
        )
        .await;
        assert_eq!(s["result"], "selected \"Ohio\"", "{s}");
        assert_eq!(eval(&server, &id, &out("state")).await, "State: Ohio");
        let atlantis = fails(
            &server,
            &id,
            json!({"command": "select", "label": "State", "option": "Atlantis"}),
        )
        .await;
        let state = ref_of(&server, &id, "combobox \"State\"").await;
        assert!(
            atlantis.starts_with(&format!(
                "Typed \"Atlantis\" into combobox \"State\" [ref={state}]: No option \"Atlantis\" found"
            )),
            "{atlantis}"
        );

        // antd's Select: its `aria-controls` names the copy of no size; the visible item is clicked.
        let s = ok(
            &server,
            &id,
            json!({"command": "select", "label": "City", "option": "Paris"}),
        )
        .await;
        assert_eq!(s["result"], "selected \"Paris\"", "{s}");
        assert_eq!(eval(&server, &id, &out("city")).await, "City: Paris");

        // `type` into the field labelled "Age", not the column header of that name.
        let s = ok(&server, &id, json!({"command": "type", "label": "Age", "text": "42"})).await;
        assert_eq!(s["result"], "typed \"42\"", "{s}");
        assert_eq!(
            eval(&server, &id, "return document.getElementById('age').value").await,
            "42"
        );

        // Anything else is refused, with what to do instead.
        let plain = fails(
            &server,
            &id,
            json!({"command": "select", "selector": "#plain", "option": "x"}),
        )
        .await;
        assert!(
            plain.ends_with("is not a <select>, combobox or listbox; click it to open it, then click the option"),
            "{plain}"
        );
    }
);
chromium_test!(
    select_works_on_what_libraries_draw_around_a_combobox,
    Axum,
    |c, server| {
        // The seventh QA round's libraries (`fixtures/actions/combobox.html`, sections 4 to 8).
        let id = open(c, &server, "/actions/combobox.html").await;
        let out = |which: &'static str| format!("return document.getElementById('{which}-out').textContent");
        // A failed `select` closes the list it opened with a second click where Escape does not.
        let spain = fails(
            &server,
            &id,
            json!({"command": "select", "role": "combobox", "name": "Country", "option": "Spain"}),
        )
        .await;
        assert!(
            spain.starts_with("No option \"Spain\" found. Visible options: \"France\""),
            "{spain}"
        );
        assert_eq!(
            eval(&server, &id, "return document.getElementById('country-list').hidden").await,
            true
        );
        // select2: the hidden native select's copies of the options are no targets of their own.
        let s = ok(
            &server,
            &id,
            json!({"command": "select", "role": "combobox", "name": "Country", "option": "Netherlands"}),
        )
        .await;
        assert_eq!(s["result"], "selected \"Netherlands\"", "{s}");
        assert_eq!(eval(&server, &id, &out("country")).await, "Country: Netherlands");
        // A multi-select that stays open: a chosen option is not clicked out again.
        for (want, answer, now) in [
            ("Go", "selected \"Go\"", "Languages: Go"),
            ("Rust", "selected \"Rust\"", "Languages: Go, Rust"),
            ("Go", "already selected \"Go\"", "Languages: Go, Rust"),
        ] {
            let s = ok(
                &server,
                &id,
                json!({"command": "select", "role": "combobox", "name": "Languages", "option": want}),
            )
            .await;
            assert_eq!(s["result"], answer, "{s}");
            assert_eq!(eval(&server, &id, &out("langs")).await, now);
        }
        ok(
            &server,
            &id,
            json!({"command": "click", "role": "combobox", "name": "Languages"}),
        )
        .await;
        // A combobox around a text field: the text is typed into the field.
        let s = ok(
            &server,
            &id,
            json!({"command": "select", "label": "Berry", "option": "Cranberry"}),
        )
        .await;
        assert_eq!(s["result"], "selected \"Cranberry\"", "{s}");
        assert_eq!(eval(&server, &id, &out("berry")).await, "Berry: Cranberry");
        // A combobox kept in a 1 px box opens with a click on the box drawn around it; its list says
        // it is a multi-select.
        for (want, answer) in [("Oslo", "selected \"Oslo\""), ("Oslo", "already selected \"Oslo\"")] {
            let s = ok(
                &server,
                &id,
                json!({"command": "select", "label": "Cities", "option": want}),
            )
            .await;
            assert_eq!(s["result"], answer, "{s}");
        }
        assert_eq!(eval(&server, &id, &out("city2")).await, "Cities: Oslo");
        // jQuery UI's autocomplete searches 300 ms after the last key: `type` waits for it, so the
        // next step finds the suggestion.
        let v = run(
            &server,
            &id,
            json!([
                {"command": "type", "label": "Language", "text": "Jul"},
                {"command": "click", "text": "Julia"},
            ]),
        )
        .await;
        assert!(v["error"].is_null(), "{v}");
        assert_eq!(eval(&server, &id, &out("lang")).await, "Language: Julia");
        // jQuery UI's selectmenu: its label points at the combobox it draws, which a label target
        // then means.
        let s = ok(
            &server,
            &id,
            json!({"command": "select", "label": "Speed", "option": "Fast"}),
        )
        .await;
        assert_eq!(s["result"], "selected \"Fast\"", "{s}");
        assert_eq!(eval(&server, &id, &out("speed")).await, "Speed: Fast");
        // In a modal dialog whose list is moved to <body>: the list its combobox controls is part of it.
        let v = run(
            &server,
            &id,
            json!([
                {"command": "click", "text": "Edit user"},
                {"command": "select", "role": "combobox", "name": "Role", "option": "Editor"},
            ]),
        )
        .await;
        assert!(v["error"].is_null(), "{v}");
        assert_eq!(eval(&server, &id, &out("role")).await, "Role: Editor");
    }
);
chromium_test!(a_labels_text_targets_the_control_it_labels, Axum, |c, server| {
    // Radix's radio group: a text-less <button role=radio> and its <label for> side by side in
    // the group. The text "Business" means the radio, not the group around both (whose centre a
    // click once hit, answering "clicked" with nothing chosen).
    let id = open(c, &server, "/actions/custom-radios.html").await;
    let v = ok(&server, &id, json!({"command": "click", "text": "Business"})).await;
    assert_eq!(
        v["target"]["label"]
            .as_str()
            .map(|l| l.starts_with("radio \"Business\"")),
        Some(true),
        "{v}"
    );
    assert_eq!(eval(&server, &id, "return window.chosen").await, "p-Business", "{v}");
    // The same through `label`.
    ok(&server, &id, json!({"command": "click", "label": "Free"})).await;
    assert_eq!(eval(&server, &id, "return window.chosen").await, "p-Free");
});
chromium_test!(a_step_says_the_dialogs_it_opened_or_closed, Axum, |c, server| {
    // A batch's diff compares before and after the batch: a popover one step opened and the next
    // closed (a press outside it) is only in the steps' own answers.
    let id = open(c, &server, "/actions/popover.html").await;
    let v = run(
        &server,
        &id,
        json!([
            {"command": "click", "text": "Change plan"},
            {"command": "click", "text": "Billing"}
        ]),
    )
    .await;
    let said = |i: usize| v["steps"][i]["result"].as_str().unwrap_or_default().to_owned();
    assert!(said(0).ends_with("; it opened dialog \"Plan\""), "{v}");
    assert!(said(1).ends_with("; it closed dialog \"Plan\""), "{v}");
    // A confirmation the page draws: the click that opens it says so, and the one that answers it.
    let v = run(&server, &id, json!([{"command": "click", "text": "Revoke key"}])).await;
    assert!(
        v["steps"][0]["result"]
            .as_str()
            .is_some_and(|r| r.contains("it opened alertdialog \"Revoke key Staging?\"")),
        "{v}"
    );
    let v = run(&server, &id, json!([{"command": "click", "text": "Revoke"}])).await;
    assert!(
        v["steps"][0]["result"]
            .as_str()
            .is_some_and(|r| r.contains("it closed alertdialog \"Revoke key Staging?\"")),
        "{v}"
    );
    // A step that opens and closes nothing says nothing more.
    let v = run(&server, &id, json!([{"command": "click", "text": "Billing"}])).await;
    assert!(
        !v["steps"][0]["result"].as_str().unwrap_or_default().contains("; it "),
        "{v}"
    );
});
chromium_test!(a_modal_opened_and_closed_lists_only_what_changed, Axum, |c, server| {
    // While a modal is open the snapshot is the dialog alone. Its changes were the whole page
    // removed, then, when it closed, the whole page added (round 6): now the dialog is shown
    // whole with a note, and the next changes count from the page before it.
    let id = open(c, &server, "/actions/modal-keys.html").await;
    run(&server, &id, json!([{"command": "snapshot"}])).await;
    let v = run(&server, &id, json!([{"command": "click", "text": "New key"}])).await;
    let changes = v["snapshot"].as_str().unwrap_or_default();
    assert!(changes.starts_with(browser_agent_core::snapshot::MODAL_OPEN), "{v}");
    assert!(changes.contains("dialog \"New API key\""), "{v}");
    assert!(
        !changes.contains("- ") && !changes.contains("API keys\""),
        "the page behind is not listed as removed: {v}"
    );
    let v = run(
        &server,
        &id,
        json!([
            {"command": "fill", "label": "Key name", "text": "Deploy bot"},
            {"command": "click", "text": "Create key"}
        ]),
    )
    .await;
    let changes = v["snapshot"].as_str().unwrap_or_default();
    assert!(
        changes.contains("+ listitem \"Deploy bot\"") || changes.contains("\"Deploy bot\""),
        "{v}"
    );
    assert!(
        !changes.contains("heading \"API keys\""),
        "only what changed, not the page again: {v}"
    );
});
chromium_test!(a_control_drawn_as_its_label_is_clicked_there, Axum, |c, server| {
    // Bootstrap 5's radio toggle buttons: the radio is clipped away under another label, so a
    // click (or check) on it lands on its own label, as a person's would.
    let id = open(c, &server, "/actions/forms.html").await;
    let medium = browser_tests::ref_of(&server, &id, "radio \"Medium\"").await;
    ok(&server, &id, json!({"command": "click", "ref": medium})).await;
    assert_eq!(
        eval(&server, &id, "return document.getElementById('size-m').checked").await,
        true
    );
    ok(&server, &id, json!({"command": "check", "label": "Large"})).await;
    assert_eq!(
        eval(&server, &id, "return document.getElementById('size-l').checked").await,
        true
    );
    // jQuery UI's checkbox, clipped to 1 px: what is hit there is the row around it, which is no
    // click on it; its label is. Element Plus's: a 0×0 input inside its label, by its own ref.
    ok(&server, &id, json!({"command": "check", "label": "Newsletter"})).await;
    assert_eq!(
        eval(&server, &id, "return document.getElementById('news').checked").await,
        true
    );
    let terms = browser_tests::ref_of(&server, &id, "checkbox \"Accept terms\"").await;
    ok(&server, &id, json!({"command": "check", "ref": terms})).await;
    assert_eq!(
        eval(&server, &id, "return document.getElementById('terms').checked").await,
        true
    );
    ok(&server, &id, json!({"command": "uncheck", "label": "Accept terms"})).await;
    assert_eq!(
        eval(&server, &id, "return document.getElementById('terms').checked").await,
        false
    );
});
chromium_test!(
    focus_and_blur_reach_a_page_whose_window_is_not_focused,
    Axum,
    |c, server| {
        // The developer's browser sits beside the IDE: its page is not focused, where the browser
        // moves the focus without focus and blur events. The agent's actions fire them.
        let id = open(c, &server, "/actions/forms.html").await;
        let original = c.window().await.expect("window");
        let front = c.new_window(true).await.expect("new tab");
        c.switch_to_window(front.handle.clone()).await.expect("switch");
        assert_eq!(eval(&server, &id, "return document.hasFocus()").await, false);
        let state = "return document.getElementById('touch-state').textContent";
        ok(
            &server,
            &id,
            json!({"command": "type", "label": "Touched", "text": "ab"}),
        )
        .await;
        assert_eq!(eval(&server, &id, state).await, "focused");
        ok(&server, &id, json!({"command": "press", "key": "Tab"})).await;
        assert_eq!(eval(&server, &id, state).await, "touched");
        c.close_window().await.expect("close the tab");
        c.switch_to_window(original).await.expect("back");
    }
);
chromium_test!(native_dialogs_during_a_batch_are_answered, Axum, |c, server| {
    // confirm/prompt/alert opened by the agent's click (at once, or by a timer while the page
    // settles), or by the page on its own while a batch runs, would block the page and every later
    // batch: the action answers them and the answer's log says what was asked and answered.
    let id = open(c, &server, "/actions/dialogs.html").await;
    let v = run(&server, &id, json!([{"command": "click", "text": "Remove"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    let said = |v: &serde_json::Value, what: &str| {
        v["logs"]
            .as_array()
            .is_some_and(|l| l.iter().any(|e| e["text"].as_str().is_some_and(|t| t.contains(what))))
    };
    assert!(
        said(&v, "confirm(\"Really remove?\")") && said(&v, "answered OK (true)"),
        "{v}"
    );
    assert_eq!(eval(&server, &id, "return location.hash").await, "#removed");
    let v = run(&server, &id, json!([{"command": "click", "text": "Name"}])).await;
    assert!(
        said(&v, "prompt(\"Your name?\")") && said(&v, "answered \"Ada\""),
        "{v}"
    );
    assert_eq!(
        eval(&server, &id, "return document.getElementById('name').textContent").await,
        "Ada"
    );
    let v = run(&server, &id, json!([{"command": "click", "text": "Save"}])).await;
    assert!(said(&v, "alert(\"Saved\")"), "{v}");
    // One the page opens on its own later, while the batch waits for what the click set off.
    let steps = json!([
        {"command": "click", "text": "Delete"},
        {"command": "wait", "text": "deleted", "timeout": 4000},
    ]);
    let (status, v) = run_raw(&server, json!({"client": id, "steps": steps, "timeoutMs": 6000})).await;
    assert_eq!(status, 200, "{v}");
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert!(said(&v, "confirm(\"Delete for good?\")"), "{v}");
});
chromium_test!(a_click_lands_where_a_persons_would, Axum, |c, server| {
    // Found with modern component libraries (React 19, antd, Vuetify, Radix, MUI).
    let id = open(c, &server, "/actions/roots.html").await;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    // React's empty `onclick` on its root makes no control: no `clickable` around the page.
    let snap = text(&ok(&server, &id, json!({"command": "snapshot"})).await["result"]);
    assert!(
        snap.starts_with("heading \"Dashboard\" [level=1]\n\"Welcome back, Ann.\""),
        "{snap}"
    );
    // Plain text is clicked where it is, not through the root at the page's centre.
    let r = ok(&server, &id, json!({"command": "click", "text": "Welcome back"})).await;
    assert!(!text(&r["matched"]).contains("ref="), "{r}");
    assert_eq!(eval(&server, &id, "return log.textContent").await, "nothing");
    // A cell that takes clicks is the target of its own text, as its ref is.
    ok(&server, &id, json!({"command": "click", "text": "15"})).await;
    assert_eq!(eval(&server, &id, "return picked.textContent").await, "15");
    // A control that lets clicks through (`pointer-events: none`) is clicked where a person's
    // click lands: the field around it, not a cover to remove.
    ok(
        &server,
        &id,
        json!({"command": "click", "role": "combobox", "name": "Fruit"}),
    )
    .await;
    assert_eq!(eval(&server, &id, "return opened.textContent").await, "opened");
    // What `aria-hidden` hides is not offered as a visible alternative.
    let e = fails(&server, &id, json!({"command": "click", "text": "Nowhere"})).await;
    assert!(
        e.contains("Visible elements: ") && !e.contains("Behind the popup"),
        "{e}"
    );
    assert!(e.contains("button \"Archive all\""), "{e}");
    // A hover waits for the menu the page opens when the pointer stays (hover intent), so the
    // next step finds its items.
    let v = run(
        &server,
        &id,
        json!([{"command": "hover", "text": "Share"}, {"command": "click", "text": "Copy link"}]),
    )
    .await;
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert_eq!(eval(&server, &id, "return log.textContent").await, "copied");
    // The chosen item hid the menu from under the pointer: the pointer has left it, as a person's
    // still mouse does, so the menu's own reopen timer is cancelled and it stays closed.
    ok(&server, &id, json!({"command": "wait", "ms": 400})).await;
    assert_eq!(eval(&server, &id, "return menu.hidden").await, true);
    // A click on the button waits for the menu its pointer's arrival opens, as a hover does.
    ok(
        &server,
        &id,
        json!({"command": "evaluate", "script": "log.textContent = ''"}),
    )
    .await;
    let v = run(
        &server,
        &id,
        json!([{"command": "click", "text": "Share"}, {"command": "click", "text": "Copy link"}]),
    )
    .await;
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert_eq!(eval(&server, &id, "return log.textContent").await, "copied");
});
chromium_test!(a_form_submitted_by_enter_hands_over, Axum, |c, server| {
    form_submitted_by_enter_case(c, &server).await
});
chromium_test!(validation_modals_and_timed_out_batches, Axum, |c, server| {
    validation_modals_and_timeouts_case(c, &server).await
});
chromium_test!(same_origin_frames, Axum, |c, server| same_origin_frames_case(
    c, &server
)
.await);
chromium_test!(inert_content_and_modal_dialogs, Axum, |c, server| {
    inert_and_modal_dialogs_case(c, &server).await
});
chromium_test!(cursor_in_iframe, Axum, |c, server| cursor_in_iframe_case(c, &server)
    .await);

async fn form_controls_case(c: &Client, server: &Server) {
    let id = open(c, server, "/actions/form.html").await;

    // A plain assignment is lost on the React-style input (the fixture works as intended) ...
    eval(
        server,
        &id,
        "const i = document.getElementById('name'); i.value = 'lost'; i.dispatchEvent(new Event('input', {bubbles: true})); i.value = ''; return 1",
    )
    .await;
    assert_eq!(eval(server, &id, "window.reactState").await, "");
    // ... and `type` reaches the state, with key events per character and `change` at the end.
    let (v, took) = run_timed(
        server,
        Some(&id),
        json!([{"command": "type", "label": "Full name", "text": "Ada Lovelace"}]),
    )
    .await;
    let step = &v["steps"][0];
    assert!(step["error"].is_null(), "{v}");
    assert_eq!(step["result"], "typed \"Ada Lovelace\"");
    assert!(
        step["matched"]
            .as_str()
            .unwrap()
            .starts_with("textbox \"Full name\" [ref=e"),
        "{step}"
    );
    assert!(step["at"].as_f64().is_some(), "session log: at: {step}");
    assert!(step["viewport"]["w"].as_f64().unwrap() > 0.0, "{step}");
    let bx = &step["target"]["box"];
    assert!(
        bx["w"].as_f64().unwrap() > 0.0 && bx["h"].as_f64().unwrap() > 0.0,
        "{step}"
    );
    assert_eq!(step["target"]["label"], step["matched"]);
    println!("type round trip (12 chars): {} ms", took.as_millis());
    assert_eq!(eval(server, &id, "window.reactState").await, "Ada Lovelace");
    assert_eq!(
        eval(server, &id, "document.getElementById('echo').textContent").await,
        "Ada Lovelace"
    );
    let events = eval(
        server,
        &id,
        "window.events.filter(e => e.endsWith(':A') || e === 'change:name')",
    )
    .await;
    assert_eq!(events, json!(["keydown:A", "keypress:A", "keyup:A", "change:name"]));

    // `clear` and `name` + `role` as the target; `fill` sets the whole value with one input event.
    ok(
        server,
        &id,
        json!({"command": "type", "role": "textbox", "name": "Full name", "text": "Grace", "clear": true}),
    )
    .await;
    assert_eq!(eval(server, &id, "window.reactState").await, "Grace");
    ok(
        server,
        &id,
        json!({"command": "fill", "placeholder": "you@example", "text": "ada@example.com"}),
    )
    .await;
    assert_eq!(
        eval(server, &id, "document.getElementById('email').value").await,
        "ada@example.com"
    );

    // select: by text, value or label, case-insensitive.
    let s = ok(
        server,
        &id,
        json!({"command": "select", "label": "Color", "option": "green"}),
    )
    .await;
    assert_eq!(s["result"], "selected \"Green\"");
    assert_eq!(eval(server, &id, "window.selectedColor").await, "g");
    ok(
        server,
        &id,
        json!({"command": "select", "label": "Color", "option": "B"}),
    )
    .await;
    assert_eq!(eval(server, &id, "window.selectedColor").await, "b");
    let e = fails(
        server,
        &id,
        json!({"command": "select", "label": "Color", "option": "Purple"}),
    )
    .await;
    let color = ref_of(server, &id, "combobox \"Color\"").await;
    assert_eq!(
        e,
        format!("No option \"Purple\" in combobox \"Color\" [ref={color}]. Options: \"Choose…\", \"Red\", \"Green\", \"Blue\"")
    );

    // check / uncheck, through a click (the page's handlers see it).
    let s = ok(server, &id, json!({"command": "check", "label": "I agree"})).await;
    assert_eq!(s["result"], "checked");
    assert_eq!(
        eval(server, &id, "document.getElementById('terms').checked").await,
        true
    );
    let s = ok(server, &id, json!({"command": "check", "label": "I agree"})).await;
    assert_eq!(s["result"], "already checked");
    ok(server, &id, json!({"command": "uncheck", "label": "Newsletter"})).await;
    assert_eq!(
        eval(server, &id, "document.getElementById('news').checked").await,
        false
    );

    // contenteditable.
    ok(
        server,
        &id,
        json!({"command": "type", "role": "textbox", "name": "Notes", "text": "Hi there"}),
    )
    .await;
    assert_eq!(
        eval(server, &id, "document.getElementById('notes').textContent").await,
        "Hi there"
    );
    assert!(eval(server, &id, "window.notesInputs").await.as_f64().unwrap() >= 8.0);

    // click: the full event sequence in order; the form submits.
    let (v, took) = run_timed(server, Some(&id), json!([{"command": "click", "text": "Save profile"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    println!("click round trip: {} ms", took.as_millis());
    assert_eq!(
        eval(server, &id, "window.events.filter(e => e.endsWith(':submit'))").await,
        json!([
            "pointerdown:submit",
            "mousedown:submit",
            "focus:submit",
            "pointerup:submit",
            "mouseup:submit",
            "click:submit"
        ])
    );
    assert_eq!(eval(server, &id, "window.submitted").await, 1);

    // A disabled button is refused.
    let del = ref_of(server, &id, "button \"Delete account\"").await;
    let e = fails(server, &id, json!({"command": "click", "ref": del})).await;
    assert_eq!(e, format!("button \"Delete account\" [ref={del}] is disabled"));
}

async fn pointer_and_keys_case(c: &Client, server: &Server) {
    let id = open(c, server, "/actions/form.html").await;

    // Covered by the cookie banner: refused, naming the cover and how to close it.
    let pay = ref_of(server, &id, "button \"Pay now\"").await;
    let accept = ref_of(server, &id, "button \"Accept cookies\"").await;
    let e = fails(server, &id, json!({"command": "click", "text": "Pay now"})).await;
    assert_eq!(
        e,
        format!(
            "button \"Pay now\" [ref={pay}] is covered by div#cookie-banner; it would get the click. Close it first, e.g. with button \"Accept cookies\" [ref={accept}]"
        )
    );
    assert_eq!(eval(server, &id, "window.paid === true").await, false);
    ok(server, &id, json!({"command": "click", "ref": accept})).await;
    ok(server, &id, json!({"command": "click", "ref": pay})).await;
    assert_eq!(eval(server, &id, "window.paid").await, true);

    // Hover-only menu: hidden until hovered.
    let e = fails(server, &id, json!({"command": "click", "text": "Profile"})).await;
    assert_eq!(e, "\"Profile\" exists but is hidden (display:none on ul#menu-items)");
    let v = run(
        server,
        &id,
        json!([{"command": "hover", "role": "button", "name": "Account"}, {"command": "click", "role": "link", "name": "Profile"}]),
    )
    .await;
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert_eq!(
        v["steps"][1]["matched"].as_str().unwrap().split(" [ref").next(),
        Some("link \"Profile\"")
    );
    assert_eq!(eval(server, &id, "window.profileClicked").await, true);

    // CSS-only hover menus (`:hover` rules, one inside `@media`) open too, and close when the
    // pointer moves on, as for a person.
    let e = fails(
        server,
        &id,
        json!({"command": "click", "role": "link", "name": "Widgets"}),
    )
    .await;
    assert_eq!(e, "\"Widgets\" exists but is hidden (display:none on ul.css-sub)");
    let v = run(
        server,
        &id,
        json!([{"command": "hover", "text": "Products"}, {"command": "click", "role": "link", "name": "Widgets"}]),
    )
    .await;
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert_eq!(eval(server, &id, "window.picked").await, "widgets");
    let v = run(
        server,
        &id,
        json!([{"command": "hover", "text": "Help"}, {"command": "click", "text": "FAQ"}]),
    )
    .await;
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert_eq!(eval(server, &id, "window.picked").await, "faq");
    let shown = "return [...document.querySelectorAll('.css-sub')].map(u => getComputedStyle(u).display)";
    assert_eq!(eval(server, &id, shown).await, json!(["none", "block"]));

    // Long list in a scroll container: the item is scrolled into view and clicked.
    ok(server, &id, json!({"command": "click", "text": "Item 150"})).await;
    assert_eq!(eval(server, &id, "window.listClicked").await, "Item 150");
    assert!(
        eval(server, &id, "document.getElementById('list').scrollTop")
            .await
            .as_f64()
            .unwrap()
            > 1000.0
    );
    // "Item 15" is a substring of others, but one name equals it exactly.
    ok(server, &id, json!({"command": "click", "text": "Item 15"})).await;
    assert_eq!(eval(server, &id, "window.listClicked").await, "Item 15");

    // scroll the page by direction and amount, and to an element.
    ok(server, &id, json!({"command": "evaluate", "script": "scrollTo(0, 0)"})).await;
    let s = ok(
        server,
        &id,
        json!({"command": "scroll", "direction": "down", "amount": 250}),
    )
    .await;
    assert!(
        s["result"]
            .as_str()
            .unwrap()
            .starts_with("scrolled the page down 250px (now at y=250 of "),
        "{s}"
    );
    assert_eq!(eval(server, &id, "scrollY").await, 250);
    ok(server, &id, json!({"command": "scroll", "text": "Next page"})).await;
    assert_eq!(
        eval(server, &id, "(() => { const r = document.getElementById('next').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()").await,
        true
    );

    // press: Control+a then Backspace clears; Shift+Tab moves focus back; Enter submits.
    ok(
        server,
        &id,
        json!({"command": "type", "label": "Full name", "text": "Ada"}),
    )
    .await;
    ok(server, &id, json!({"command": "press", "key": "Control+a"})).await;
    let s = ok(server, &id, json!({"command": "press", "key": "Backspace"})).await;
    assert!(
        s["result"]
            .as_str()
            .unwrap()
            .starts_with("pressed Backspace on textbox \"Full name\""),
        "{s}"
    );
    assert_eq!(eval(server, &id, "window.reactState").await, "");
    ok(
        server,
        &id,
        json!({"command": "press", "key": "Tab", "label": "Full name"}),
    )
    .await;
    assert_eq!(eval(server, &id, "document.activeElement.id").await, "email");
    ok(server, &id, json!({"command": "press", "key": "Shift+Tab"})).await;
    assert_eq!(eval(server, &id, "document.activeElement.id").await, "name");
    ok(server, &id, json!({"command": "press", "key": "Enter"})).await;
    assert_eq!(eval(server, &id, "window.submitted").await, 1);

    // Tab's order: a positive tabindex first, by value; round from the first back to the last
    // element that can be used (past a disabled and a hidden one).
    eval(
        server,
        &id,
        "document.body.insertAdjacentHTML('beforeend', '<button id=\"t2\" tabindex=\"2\">Two</button><button id=\"t1\" tabindex=\"1\">One</button><button id=\"last\">Last</button><button disabled>Off</button><button style=\"display: none\">Gone</button>'); document.activeElement.blur(); return true",
    )
    .await;
    for (key, now) in [("Tab", "t1"), ("Tab", "t2"), ("Shift+Tab", "t1"), ("Shift+Tab", "last")] {
        ok(server, &id, json!({"command": "press", "key": key})).await;
        assert_eq!(eval(server, &id, "document.activeElement.id").await, now, "after {key}");
    }
}

async fn shadow_targets_case(c: &Client, server: &Server) {
    // Text, role and label targets reach into open shadow roots, as refs do.
    let id = open(c, server, "/snapshot/shadow.html").await;
    eval(
        server,
        &id,
        "window.__clicks = []; const card = document.querySelector('x-card').shadowRoot; card.querySelector('button:not(.hidden)').addEventListener('click', () => __clicks.push('details')); document.querySelector('x-toggle').shadowRoot.firstElementChild.addEventListener('click', () => __clicks.push('switch')); return true",
    )
    .await;
    let v = run(server, &id, json!([{"command": "click", "text": "Shadow details"}])).await;
    assert_eq!(v["steps"][0]["matched"], "button \"Shadow details\" [ref=e3]", "{v}");
    // The click's log entry names the button inside the open root, not its host.
    let clicked: Vec<&serde_json::Value> = v["logs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "interaction")
        .map(|e| &e["target"])
        .collect();
    assert_eq!(clicked, [&json!("button \"Shadow details\"")], "{v}");
    let r = ok(
        server,
        &id,
        json!({"command": "click", "role": "switch", "name": "Dark mode"}),
    )
    .await;
    assert_eq!(r["matched"], "switch \"Dark mode\" [ref=e4]", "{r}");
    let r = ok(
        server,
        &id,
        json!({"command": "type", "label": "Fallback", "text": "x"}),
    )
    .await;
    assert!(
        r["matched"].as_str().unwrap().starts_with("textbox \"Fallback\""),
        "{r}"
    );
    assert_eq!(eval(server, &id, "return __clicks").await, json!(["details", "switch"]));
    assert_eq!(
        eval(
            server,
            &id,
            "return document.querySelector('x-empty-slot').shadowRoot.querySelector('input').value"
        )
        .await,
        "x"
    );
    let e = fails(server, &id, json!({"command": "click", "text": "Shadow hidden"})).await;
    assert_eq!(
        e,
        "\"Shadow hidden\" exists but is hidden (display:none on button.hidden)"
    );
    // A closed root stays closed, as it is for any script of the page.
    let e = fails(server, &id, json!({"command": "click", "text": "Closed root button"})).await;
    assert!(
        e.starts_with("No element with text \"Closed root button\" found"),
        "{e}"
    );
}

async fn teaching_errors_case(c: &Client, server: &Server) {
    let id = open(c, server, "/actions/teach.html").await;
    let e = fails(
        server,
        &id,
        json!({"command": "click", "role": "button", "name": "Submit"}),
    )
    .await;
    assert_eq!(
        e,
        "No button \"Submit\" found. Visible buttons: \"Generate\", \"Collection\", \"Save\""
    );
    let e = fails(server, &id, json!({"command": "click", "text": "Upgrade plan"})).await;
    assert_eq!(
        e,
        "\"Upgrade plan\" exists but is hidden (display:none on section#billing)"
    );

    // Two equally good matches: listed, and `nth` picks one.
    let e = fails(server, &id, json!({"command": "click", "text": "Details"})).await;
    assert!(
        e.starts_with("2 elements match text \"Details\": link \"Details\" [ref=e"),
        "{e}"
    );
    assert!(e.ends_with(". Use a ref, or \"nth\" (0 = the first)"), "{e}");
    ok(server, &id, json!({"command": "click", "text": "Details", "nth": 1})).await;
    assert_eq!(eval(server, &id, "location.hash").await, "#b");
    // An `nth` past the matches is refused, with one match as with two: acting on the only one
    // would act on an element the agent did not mean.
    let e = fails(server, &id, json!({"command": "click", "text": "Details", "nth": 2})).await;
    assert!(e.starts_with("2 elements match text \"Details\": "), "{e}");
    assert!(e.ends_with("; nth is out of range"), "{e}");
    let e = fails(
        server,
        &id,
        json!({"command": "click", "role": "button", "name": "Save", "nth": 1}),
    )
    .await;
    assert!(
        e.starts_with("1 element matches button \"Save\": button \"Save\" [ref=e"),
        "{e}"
    );
    assert!(e.ends_with("; nth is out of range"), "{e}");
    assert_eq!(eval(server, &id, "window.saved === true").await, false);
    // And a wait for the third match waits until there are three.
    let add = "setTimeout(() => { const a = document.createElement('a'); a.href = '#c'; a.textContent = 'Details'; \
        document.body.append(a); }, 300); return 1";
    eval(server, &id, add).await;
    let waited = ok(
        server,
        &id,
        json!({"command": "wait", "role": "link", "name": "Details", "nth": 2, "timeout": 5000}),
    )
    .await;
    let waited = waited["result"].as_str().unwrap().to_owned();
    let ms: u64 = waited
        .rsplit(" after ")
        .next()
        .unwrap()
        .trim_end_matches(" ms")
        .parse()
        .unwrap();
    assert!(ms >= 250, "{waited}");

    // A stale ref never acts on another element; the error names the new one.
    let old = ref_of(server, &id, "button \"Save\"").await;
    eval(server, &id, "window.rerender(), 1").await;
    let e = fails(server, &id, json!({"command": "click", "ref": old})).await;
    let new = e.rsplit("[ref=").next().unwrap().trim_end_matches(']').to_owned();
    assert_ne!(new, old);
    assert_eq!(
        e,
        format!("Element [ref={old}] is gone (the page changed). Take a new snapshot; similar now: button \"Save\" [ref={new}]")
    );
    assert_eq!(eval(server, &id, "window.saved === true").await, false);
    ok(server, &id, json!({"command": "click", "ref": new})).await;
    assert_eq!(eval(server, &id, "window.saved").await, true);
    // The same element taken out (a snapshot taken meanwhile) and put back, as a menu closed and
    // opened again: its ref still names it, the first time.
    let parked = "const b = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() == 'Save'); \
        window.parked = [b, b.parentNode, b.nextSibling]; b.remove(); window.saved = false; return 1";
    eval(server, &id, parked).await;
    let v = ok(server, &id, json!({"command": "snapshot"})).await;
    assert!(!v["result"].as_str().unwrap().contains("\"Save\""), "{v}");
    // Put back and clicked in one batch, so no snapshot between sees it again.
    let put_back = "const [b, p, n] = window.parked; p.insertBefore(b, n); return 1";
    let v = run(
        server,
        &id,
        json!([{"command": "evaluate", "script": put_back}, {"command": "click", "ref": new}]),
    )
    .await;
    assert!(v["steps"][1]["error"].is_null(), "{v}");
    assert_eq!(eval(server, &id, "window.saved").await, true);

    // wait: for text anywhere, for an element, for it to go.
    let id = open(c, server, "/actions/form.html").await;
    let v = run(
        server,
        &id,
        json!([
            {"command": "click", "text": "Load more"},
            {"command": "wait", "text": "Loaded 3 items"},
            {"command": "wait", "text": "Loading", "gone": true, "timeout": 1000},
        ]),
    )
    .await;
    assert!(v["steps"][2]["error"].is_null(), "{v}");
    let waited = v["steps"][1]["result"].as_str().unwrap();
    assert!(waited.starts_with("\"Loaded 3 items\" appeared after "), "{waited}");
    let e = fails(
        server,
        &id,
        json!({"command": "wait", "role": "button", "name": "Never", "timeout": 300}),
    )
    .await;
    assert!(
        e.starts_with("Timed out after 300 ms waiting for the target. No button \"Never\" found. Visible buttons: "),
        "{e}"
    );
    // An unknown command is refused by the host before any step runs (400, nothing queued).
    let body = json!({"client": id, "steps": [{"command": "snapshot"}, {"command": "frobnicate"}]});
    let (status, v) = run_raw(server, body).await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"].as_str().is_some_and(
            |e| e.starts_with("step 2 (nothing ran): unknown command \"frobnicate\"; commands: snapshot, click")
        ),
        "{v}"
    );
}

async fn evaluate_case(c: &Client, server: &Server) {
    let id = open(c, server, "/actions/teach.html").await;
    // An expression is returned; a body with return runs as is; await works.
    assert_eq!(eval(server, &id, "1 + 2").await, 3);
    assert_eq!(eval(server, &id, "const a = 2; return a * 5").await, 10);
    assert_eq!(
        eval(server, &id, "await new Promise(r => setTimeout(() => r('late'), 30))").await,
        "late"
    );
    // A DOM node is described.
    let node = eval(server, &id, "document.getElementById('save')").await;
    assert_eq!(node["__type"], "Element");
    assert_eq!(node["tag"], "button");
    assert_eq!(node["id"], "save");
    assert_eq!(node["text"], "Save");
    assert!(
        node["label"].as_str().unwrap().starts_with("button \"Save\" [ref=e"),
        "{node}"
    );
    // A cycle is marked; shared references that are not cycles are kept.
    let v = eval(
        server,
        &id,
        "const o = {name: 'o'}; const s = [1]; o.self = o; o.a = s; o.b = s; return o",
    )
    .await;
    assert_eq!(v, json!({"name": "o", "self": "[Circular]", "a": [1], "b": [1]}));
    // Bounds: 500 items, 20,000 chars, depth 10; special values.
    let v = eval(server, &id, "Array.from({length: 600}, (_, i) => i)").await;
    assert_eq!(v.as_array().unwrap().len(), 501);
    assert_eq!(v[500], "…(+100 more)");
    let v = eval(server, &id, "'x'.repeat(20005)").await;
    assert!(v.as_str().unwrap().ends_with("…(+5 chars)"));
    let v = eval(
        server,
        &id,
        "let o = {}; const top = o; for (let i = 0; i < 15; i++) { o.n = {}; o = o.n; } return top",
    )
    .await;
    let mut d = &v;
    for _ in 0..10 {
        d = &d["n"];
    }
    assert_eq!(*d, json!("[Max depth]"));
    let v = eval(
        server,
        &id,
        "({u: undefined, b: 10n, f: function named() {}, e: new TypeError('bad'), d: new Date(0)})",
    )
    .await;
    assert_eq!(v["u"], "[undefined]");
    assert_eq!(v["b"], "10n");
    assert_eq!(v["f"], "[Function: named]");
    assert_eq!(v["e"]["__type"], "Error");
    assert_eq!(v["e"]["name"], "TypeError");
    assert_eq!(v["e"]["message"], "bad");
    assert_eq!(v["d"], "1970-01-01T00:00:00.000Z");
    // A rejected promise and a throw fail the step with name and message.
    let e = fails(
        server,
        &id,
        json!({"command": "evaluate", "script": "Promise.reject(new RangeError('nope'))"}),
    )
    .await;
    assert!(e.starts_with("evaluate failed: RangeError: nope"), "{e}");
    let e = fails(
        server,
        &id,
        json!({"command": "evaluate", "script": "throw new Error('boom')"}),
    )
    .await;
    assert!(e.starts_with("evaluate failed: Error: boom"), "{e}");
    // The stack names the script's own lines, not the client's wrapper or its frames.
    let e = fails(
        server,
        &id,
        json!({"command": "evaluate", "script": "function f() { null.x }\nf()"}),
    )
    .await;
    assert_eq!(
        e,
        "evaluate failed: TypeError: Cannot read properties of null (reading 'x')\n    at f (script:1:21)\n    at script:2:1"
    );
    let e = fails(
        server,
        &id,
        json!({"command": "evaluate", "script": "this is not code"}),
    )
    .await;
    assert!(e.starts_with("evaluate failed: SyntaxError: "), "{e}");
    // What the server logged while the batch ran is in its answer, with the page's entries.
    let v = run(
        server,
        &id,
        json!([{"command": "evaluate", "script": "return (await fetch('/api/fail')).status"}]),
    )
    .await;
    assert_eq!(v["steps"][0]["result"], 500, "{v}");
    let logs = v["logs"].as_array().expect("logs");
    let server_at = logs
        .iter()
        .position(|e| e["type"] == "server")
        .unwrap_or_else(|| panic!("{v}"));
    let seqs: Vec<u64> = logs.iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in the order stored: {v}");
    assert!(
        logs[server_at]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("/api/fail"),
        "{v}"
    );
}

async fn navigation_hands_over_case(c: &Client, server: &Server) {
    let id = open(c, server, "/actions/form.html").await;
    // A link click that navigates: the batch continues on the second page.
    let v = run(
        server,
        &id,
        json!([
            {"command": "click", "text": "Next page"},
            {"command": "type", "label": "City", "text": "Paris"},
            {"command": "evaluate", "script": "document.getElementById('city').value + ' @ ' + location.pathname"},
        ]),
    )
    .await;
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{v}");
    let first = steps[0]["result"].as_str().unwrap();
    assert!(first.starts_with("clicked; navigating to http://"), "{v}");
    assert!(first.ends_with("/actions/page2.html"), "{v}");
    assert_eq!(steps[1]["index"], 1);
    assert!(
        steps[1]["url"].as_str().unwrap().ends_with("/actions/page2.html"),
        "{v}"
    );
    assert_eq!(steps[2]["result"], "Paris @ /actions/page2.html");
    assert!(v["snapshot"].as_str().unwrap().contains("Second page"), "{v}");
    let url = c.current_url().await.unwrap();
    assert!(url.as_str().ends_with("/actions/page2.html"));

    // navigate and back: the batch survives both page loads.
    let id = client_id(c, server).await;
    let v = run(
        server,
        &id,
        json!([
            {"command": "navigate", "url": "/actions/teach.html"},
            {"command": "evaluate", "script": "document.title"},
            {"command": "back"},
            {"command": "evaluate", "script": "window.arrivedAt"},
        ]),
    )
    .await;
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{v}");
    assert!(
        steps[0]["result"].as_str().unwrap().ends_with("/actions/teach.html"),
        "{v}"
    );
    assert_eq!(steps[1]["result"], "Errors that teach");
    assert_eq!(steps[2]["result"], "going back");
    assert_eq!(steps[3]["result"], "/actions/page2.html");

    // A diff never pairs two page loads: each numbers its refs from e1, so the new page's first
    // snapshot is whole (not `~ link "Next page" [ref=e1]` against the page it left).
    let id = client_id(c, server).await;
    let v = run(
        server,
        &id,
        json!([
            {"command": "snapshot"},
            {"command": "navigate", "url": "/actions/form.html"},
            {"command": "snapshot", "diff": true},
        ]),
    )
    .await;
    let whole = v["steps"][0]["result"].as_str().unwrap();
    assert!(whole.contains("textbox \"City\" [value=\"Paris\"] [ref=e1]"), "{v}");
    let arrived = v["steps"][2]["result"].as_str().unwrap();
    assert!(arrived.contains("heading \"Actions\""), "{v}");
    assert!(
        arrived
            .lines()
            .all(|l| !["+ ", "- ", "~ "].iter().any(|m| l.starts_with(m))),
        "the new page's first snapshot is whole: {v}"
    );
    assert!(arrived.contains("[ref=e1]") && !arrived.contains("City"), "{v}");
    assert_eq!(
        v["snapshot"], "(as step 3 showed it)",
        "the new page has no baseline from before the batch: named as its step showed it: {v}"
    );

    // Back to a page the back/forward cache restores (the same client id): its first snapshot is
    // whole too, not "(no changes)" against what it showed before the agent saw page two.
    let form = v["clientId"].as_str().unwrap().to_owned();
    let v = run(server, &form, json!([{"command": "click", "text": "Next page"}])).await;
    assert!(
        v["snapshot"].as_str().unwrap().starts_with("heading \"Second page\""),
        "{v}"
    );
    let two = v["clientId"].as_str().unwrap().to_owned();
    let v = run(server, &two, json!([{"command": "back"}])).await;
    assert_eq!(
        v["clientId"],
        form.as_str(),
        "restored from the back/forward cache: {v}"
    );
    assert!(
        v["snapshot"].as_str().unwrap().starts_with("heading \"Actions\""),
        "{v}"
    );

    // A form's POST answered with a page: that page gets the client too, and the batch goes on
    // there (it used to end with "no browser-agent client started there").
    let id = open(c, server, "/actions/post.html").await;
    let v = run(
        server,
        &id,
        json!([
            {"command": "fill", "label": "Note", "text": "hello"},
            {"command": "click", "text": "Send it", "waitNetwork": true},
            {"command": "evaluate", "script": "location.pathname + ' ' + document.body.textContent.trim()"},
        ]),
    )
    .await;
    assert_eq!(v["steps"][2]["result"], "/fixtures/sized fixture body", "{v}");
    // The form's request is the navigation's, no fetch or XHR: not "it started no requests".
    let clicked = v["steps"][1]["result"].as_str().unwrap();
    let to = format!("navigating to {}", server.url("/fixtures/sized"));
    assert!(clicked.ends_with(&to), "{v}");
    assert!(v["error"].is_null(), "{v}");
}

async fn form_submitted_by_button_case(c: &Client, server: &Server) {
    // A form submitted by its button navigates: the rest of the batch runs in the new page.
    let id = open(c, server, "/actions/forms.html").await;
    let v = run(
        server,
        &id,
        json!([
            {"command": "type", "label": "Query", "text": "cats"},
            {"command": "evaluate", "script": "console.log('before the form')"},
            {"command": "click", "role": "button", "name": "Go"},
            {"command": "evaluate", "script": "location.pathname + location.search"},
        ]),
    )
    .await;
    let mut steps = v["steps"].as_array().unwrap().clone();
    assert_eq!(steps.len(), 4, "{v}");
    // What the first page logged is in the merged answer too.
    assert!(
        v["logs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["text"] == "before the form"),
        "{v}"
    );
    steps.remove(1);
    // ("clicked; navigating to …", or "navigating to …" when the page unloaded before the step
    // finished: a form navigates from a task of its own.)
    let to = format!("navigating to {}", server.url("/actions/page2.html?q=cats"));
    assert!(steps[1]["result"].as_str().unwrap().ends_with(&to), "{v}");
    assert_eq!(steps[2]["result"], "/actions/page2.html?q=cats", "{v}");
}

async fn typed_values_are_what_a_person_gets_case(c: &Client, server: &Server) {
    // A number or date field reads "" for a partial value ("1.", "-"): the next key goes on from
    // what a person's field shows, not from "".
    let id = open(c, server, "/actions/forms.html").await;
    for (label, text, want) in [
        ("Qty", "1.5", "1.5"),
        ("Qty", "-42", "-42"),
        ("Qty", "0.25", "0.25"),
        ("When", "2024-05-06T07:09", "2024-05-06T07:09"),
    ] {
        let r = ok(
            server,
            &id,
            json!({"command": "type", "label": label, "text": text, "clear": true}),
        )
        .await;
        assert_eq!(r["result"], format!("typed \"{text}\""), "{r}");
        let field = if label == "Qty" { "qty" } else { "when" };
        let value = eval(
            server,
            &id,
            &format!("return document.querySelector('[name={field}]').value"),
        )
        .await;
        assert_eq!(value, want, "{label} {text}");
    }
    // A password is not repeated in the answer, so neither the action log nor a proof holds it.
    let r = ok(
        server,
        &id,
        json!({"command": "type", "label": "Secret", "text": "MyS3cret!"}),
    )
    .await;
    assert_eq!(r["result"], "typed \"•••\"", "{r}");
    let (status, log) = http_get(server.addr, &format!("{PREFIX}/actions?client={id}"));
    assert_eq!(status, 200, "{log}");
    assert!(log.contains("typed \\\"•••\\\"") && !log.contains("MyS3cret!"), "{log}");
    assert_eq!(
        eval(server, &id, "return document.querySelector('[name=secret]').value").await,
        "MyS3cret!"
    );
    // Typing and filling stop at `maxlength`, as a person's typing does, and the answer says what
    // the field holds.
    let zip = "return document.querySelector('[name=zip]').value";
    let r = ok(server, &id, json!({"command": "type", "label": "Zip", "text": "12"})).await;
    assert_eq!(r["result"], "typed \"12\"", "{r}");
    let r = ok(server, &id, json!({"command": "type", "label": "Zip", "text": "3456"})).await;
    assert_eq!(r["result"], "typed \"3456\"; the field now holds \"12345\"", "{r}");
    assert_eq!(eval(server, &id, zip).await, "12345");
    let r = ok(
        server,
        &id,
        json!({"command": "fill", "label": "Zip", "text": "abcdefgh"}),
    )
    .await;
    assert_eq!(r["result"], "filled \"abcdefgh\"; the field now holds \"abcde\"", "{r}");
    assert_eq!(eval(server, &id, zip).await, "abcde");
    // `fill` sets a slider (within its range, as the browser keeps it) and a colour, and the
    // page's input and change handlers see it; `type` into them is refused.
    for (label, text, result, holds) in [
        ("Volume", "7", "filled \"7\"", "7"),
        ("Volume", "15", "filled \"15\"; the field now holds \"10\"", "10"),
        ("Accent", "#00ff00", "filled \"#00ff00\"", "#00ff00"),
    ] {
        let r = ok(server, &id, json!({"command": "fill", "label": label, "text": text})).await;
        assert_eq!(r["result"], result, "{r}");
        let seen = format!("return window.{}Seen", label.to_lowercase());
        assert_eq!(eval(server, &id, &seen).await, holds);
    }
    assert_eq!(eval(server, &id, "return window.volumeChanged").await, "10");
    let e = fails(server, &id, json!({"command": "type", "label": "Volume", "text": "5"})).await;
    assert!(e.ends_with("fill also sets a slider or a colour)"), "{e}");
    // A field the page empties while typing goes on empty (only a number or date field's partial
    // value reads "" while it shows something).
    ok(
        server,
        &id,
        json!({"command": "type", "label": "Tags", "text": "red,blue"}),
    )
    .await;
    assert_eq!(
        eval(
            server,
            &id,
            "return [window.tags, document.querySelector('[name=tags]').value]"
        )
        .await,
        json!([["red"], "blue"])
    );
    // `select` takes the option that is the text, else the only one containing it; several that
    // contain it are refused, not guessed between.
    let plan = "return document.querySelector('[name=plan]').value";
    let e = fails(
        server,
        &id,
        json!({"command": "select", "label": "Plan", "option": "Pro"}),
    )
    .await;
    assert!(
        e.starts_with("Several options contain \"Pro\" in combobox \"Plan\" [ref=e")
            && e.ends_with("]. Options: \"Basic\", \"Pro monthly\", \"Pro yearly\""),
        "{e}"
    );
    assert_eq!(eval(server, &id, plan).await, "Basic");
    let r = ok(
        server,
        &id,
        json!({"command": "select", "label": "Plan", "option": "yearly"}),
    )
    .await;
    assert_eq!(r["result"], "selected \"Pro yearly\"", "{r}");
    let r = ok(
        server,
        &id,
        json!({"command": "select", "label": "Plan", "option": "pro MONTHLY"}),
    )
    .await;
    assert_eq!(r["result"], "selected \"Pro monthly\"", "{r}");
    assert_eq!(eval(server, &id, plan).await, "Pro monthly");
    // A multi-select keeps what was chosen before.
    for option in ["Olives", "Cheese"] {
        ok(
            server,
            &id,
            json!({"command": "select", "label": "Toppings", "option": option}),
        )
        .await;
    }
    assert_eq!(
        eval(
            server,
            &id,
            "return [[...document.querySelector('[name=toppings]').selectedOptions].map((o) => o.text), window.toppingsChanged]"
        )
        .await,
        json!([["Cheese", "Olives"], 2])
    );
}

async fn form_submitted_by_enter_case(c: &Client, server: &Server) {
    // A form submitted by Enter in its field navigates: the rest of the batch runs in the new page.
    let id = open(c, server, "/actions/forms.html").await;
    let v = run(
        server,
        &id,
        json!([
            {"command": "type", "label": "Query", "text": "dogs"},
            {"command": "press", "key": "Enter"},
            {"command": "evaluate", "script": "location.search"},
        ]),
    )
    .await;
    assert_eq!(v["steps"][2]["result"], "?q=dogs", "{v}");
}

async fn validation_modals_and_timeouts_case(c: &Client, server: &Server) {
    // The browser's validation refuses a submission: the step says so, with the browser's words.
    let id = open(c, server, "/actions/forms.html").await;
    ok(server, &id, json!({"command": "type", "label": "Email", "text": "ab"})).await;
    let r = ok(
        server,
        &id,
        json!({"command": "click", "role": "button", "name": "Send"}),
    )
    .await;
    let text = r["result"].as_str().unwrap();
    assert!(
        text.starts_with("clicked; the form was not submitted: textbox \"Email\" [ref=e") && text.contains("@"),
        "{r}"
    );
    // Control+a selects all of an email field (it has no selection API), so Backspace clears it.
    ok(
        server,
        &id,
        json!({"command": "press", "key": "Control+a", "label": "Email"}),
    )
    .await;
    ok(server, &id, json!({"command": "press", "key": "Backspace"})).await;
    assert_eq!(
        eval(server, &id, "return document.querySelector('[name=email]').value").await,
        ""
    );

    // A link to a new window: chromedriver's Chromium allows popups, so it opens, and the step
    // names the new page (tests/popups.rs has both ways).
    let r = ok(server, &id, json!({"command": "click", "text": "Open in a new tab"})).await;
    let text = r["result"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("clicked; opened page ")
            && text.ends_with(&format!(": {} (popup of {id})", server.url("/actions/page2.html"))),
        "{text}"
    );
    // A control inside its label is named by the label's own words.
    ref_of(server, &id, "textbox \"Bio\"").await;
    ref_of(server, &id, "combobox \"Role\"").await;
    // An ARIA modal that holds the focus shuts the rest of the page off, for the snapshot and for
    // commands; shown while the focus stays on the page (a cookie bar so marked), it blocks
    // nothing, as in Chromium's accessibility tree.
    eval(
        server,
        &id,
        "document.getElementById('amodal').hidden = false; return true",
    )
    .await;
    let snap = ok(server, &id, json!({"command": "snapshot"})).await["result"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        snap.contains("button \"OK\"") && snap.contains("button \"Go\""),
        "{snap}"
    );
    eval(
        server,
        &id,
        "document.querySelector('#amodal button').focus(); return true",
    )
    .await;
    let snap = ok(server, &id, json!({"command": "snapshot"})).await["result"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        snap.contains("button \"OK\"") && !snap.contains("button \"Go\""),
        "{snap}"
    );
    let e = fails(
        server,
        &id,
        json!({"command": "click", "role": "button", "name": "Send"}),
    )
    .await;
    assert_eq!(
        e,
        "\"Send\" exists but cannot be used (behind the open modal dialog \"Confirm\")"
    );
    eval(
        server,
        &id,
        "document.getElementById('amodal').hidden = true; return true",
    )
    .await;
    // A ref that was never given is not "gone".
    let e = fails(server, &id, json!({"command": "click", "ref": "e999"})).await;
    assert!(
        e.starts_with("There is no [ref=e999] on this page (its refs go up to e"),
        "{e}"
    );
    // A step field of the wrong value is refused by the host before anything runs.
    let (status, v) = run_raw(server, json!({"client": id, "steps": [{"command": "wait", "ms": -1}]})).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(
        v["error"],
        "step 1 (nothing ran): invalid ms -1: expected a number of milliseconds, 0 or more"
    );

    // A batch the agent already got a timeout for stops in the page: no later step acts (an agent
    // that retries must not act twice), and waits end at the deadline.
    let body = json!({"client": id, "timeoutMs": 1000, "steps": [
        {"command": "wait", "ms": 600},
        {"command": "wait", "ms": 600},
        {"command": "evaluate", "script": "window.__late = true"},
    ]})
    .to_string();
    let addr = server.addr;
    let (status, text) = tokio::task::spawn_blocking(move || http_post_json(addr, &format!("{PREFIX}/run"), &body))
        .await
        .unwrap();
    assert_eq!(status, 504, "{text}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(eval(server, &id, "return window.__late === undefined").await, true);
}

async fn same_origin_frames_case(c: &Client, server: &Server) {
    // Same-origin frames: found by text and by their `f…` refs, and clicked where they are.
    let id = open(c, server, "/snapshot/iframe.html").await;
    eval(
        server,
        &id,
        "window.__pays = 0; const d = document.querySelector('iframe').contentDocument; d.querySelector('form').addEventListener('submit', e => { e.preventDefault(); window.__pays++; }); return true",
    )
    .await;
    let r = ok(server, &id, json!({"command": "click", "text": "Pay $12.00"})).await;
    let matched = r["matched"].as_str().unwrap().to_owned();
    assert!(matched.starts_with("button \"Pay $12.00\" [ref=f1e"), "{r}");
    let pay = ref_of(server, &id, "\"Pay $12.00\"").await;
    assert!(
        matched.ends_with(&format!("[ref={pay}]")),
        "{matched} vs the snapshot's {pay}"
    );
    ok(server, &id, json!({"command": "click", "ref": pay})).await;
    // Numbers are unique across frames: the number alone finds the frame's element, but a wrong
    // frame prefix is a wrong ref, not another spelling of it (nothing is clicked).
    let number = pay.split_once('e').map(|(_, n)| n.to_owned()).expect("fNeM");
    ok(server, &id, json!({"command": "click", "ref": format!("e{number}")})).await;
    // Asked for by its number alone, it is still written with its frame's prefix.
    let v = ok(server, &id, json!({"command": "snapshot", "ref": format!("e{number}")})).await;
    assert_eq!(v["result"], format!("button \"Pay $12.00\" [ref={pay}]"), "{v}");
    let cancel = ref_of(server, &id, "button \"Cancel\"").await;
    for wrong in [format!("f9e{number}"), format!("f1{cancel}")] {
        let e = fails(server, &id, json!({"command": "click", "ref": wrong})).await;
        assert!(e.starts_with(&format!("There is no [ref={wrong}] on this page")), "{e}");
    }
    // Written as agents write refs (leading zeros, `@`, `ref=`, copied with the line's brackets,
    // in capitals), numbers are compared as numbers: `f1e048` and `f01e48` are `f1e48`.
    let (frame, _) = pay.split_once('e').expect("fNeM");
    for spelling in [
        format!("{frame}e0{number}"),
        format!("@ref={frame}e0{number}"),
        format!("f0{}e{number}", &frame[1..]),
        format!("[ref={pay}]"),
        pay.to_uppercase(),
    ] {
        let v = ok(server, &id, json!({"command": "snapshot", "ref": spelling})).await;
        assert_eq!(
            v["result"],
            format!("button \"Pay $12.00\" [ref={pay}]"),
            "{spelling}: {v}"
        );
    }
    // Not a ref at all: the host refuses the batch before the page sees it.
    let (status, v) = run_raw(
        server,
        json!({"client": id, "steps": [{"command": "click", "ref": "5"}]}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(
        v["error"],
        "step 1 (nothing ran): invalid ref \"5\": expected a ref from a snapshot (refs look like e12, or f1e12 inside a frame)"
    );
    ok(
        server,
        &id,
        json!({"command": "type", "label": "Expiry", "text": "12/30"}),
    )
    .await;
    assert_eq!(eval(server, &id, "return window.__pays").await, 3);
    assert_eq!(
        eval(
            server,
            &id,
            "return document.querySelector('iframe').contentDocument.querySelector('[placeholder]').value"
        )
        .await,
        "12/30"
    );
    // A frame's field named by its own `label for`, both where the step names it and in the
    // snapshot (it was named by its placeholder: the page's document, not the frame's, was
    // searched for its label, and the page has a field with the same id).
    let r = ok(server, &id, json!({"command": "fill", "label": "CVC", "text": "123"})).await;
    assert!(
        r["matched"].as_str().unwrap().starts_with("textbox \"CVC\" [ref=f1e"),
        "{r}"
    );
    let snap = snapshot(server, &id).await;
    assert!(snap.contains("textbox \"CVC\" [value=\"123\"]"), "{snap}");
    assert!(snap.contains("textbox \"Coupon\""), "{snap}");

    // A click in the frame sets off the frame's request and text: the batch waits for that
    // request as for the page's own, and `wait` reads the frame's text (the batch used to end
    // before the request did, and `waitNetwork` said it "started no requests").
    eval(
        server,
        &id,
        "const w = document.querySelector('iframe').contentWindow; \
         w.document.querySelector('form').addEventListener('submit', () => { \
           w.fetch('/api/slow').then(() => { const p = w.document.createElement('p'); \
             p.setAttribute('role', 'alert'); p.textContent = 'Payment failed: card declined'; \
             w.document.body.append(p); }); }); return true",
    )
    .await;
    let v = run(server, &id, json!([{"command": "click", "text": "Pay $12.00"}])).await;
    assert!(
        v["snapshot"]
            .as_str()
            .unwrap()
            .contains("Payment failed: card declined"),
        "{v}"
    );
    let v = run(
        server,
        &id,
        json!([
            {"command": "click", "text": "Pay $12.00", "waitNetwork": true},
            {"command": "wait", "text": "Payment failed"},
        ]),
    )
    .await;
    let clicked = v["steps"][0]["result"].as_str().unwrap();
    assert!(clicked.contains("; the requests it started finished after "), "{v}");
    assert!(v["error"].is_null(), "{v}");
    // The frame's request is in the batch's logs (the frame's own page id on it), and stored once
    // although the frame delivers its entries too.
    let slow = |e: &&serde_json::Value| e["type"] == "network" && e["url"] == "/api/slow";
    let logged: Vec<&serde_json::Value> = v["logs"].as_array().unwrap().iter().filter(slow).collect();
    assert_eq!(logged.len(), 1, "{v}");
    let frame = logged[0]["clientId"].as_str().unwrap().to_owned();
    assert_ne!(frame, id, "{v}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        server.logs_of(&frame).iter().filter(slow).count(),
        2,
        "one entry a click"
    );
}

async fn inert_and_modal_dialogs_case(c: &Client, server: &Server) {
    // Inert content, and what a modal dialog covers, cannot be used; Escape closes the dialog.
    let id = open(c, server, "/snapshot/hidden.html").await;
    let e = fails(server, &id, json!({"command": "click", "text": "Inert button"})).await;
    assert_eq!(e, "\"Inert button\" exists but cannot be used (inert on div)");
    // Inside `content-visibility: hidden` (also what `hidden="until-found"` sets).
    for text in ["Skipped contents button", "Until found button"] {
        let e = fails(server, &id, json!({"command": "click", "text": text})).await;
        assert_eq!(
            e,
            format!("\"{text}\" exists but is hidden (content-visibility:hidden on div)")
        );
    }
    // A browser without `contentVisibility` (Firefox < 125, Safari < 18) still walks and acts.
    let gone = "const g = window.getComputedStyle; \
                window.getComputedStyle = (e, p) => new Proxy(g.call(window, e, p), { get(t, k) { \
                  const v = k === 'contentVisibility' ? undefined : Reflect.get(t, k); \
                  return typeof v === 'function' ? v.bind(t) : v; } }); \
                return getComputedStyle(document.body).contentVisibility === undefined";
    assert_eq!(eval(server, &id, gone).await, true);
    let snap = ok(server, &id, json!({"command": "snapshot"})).await;
    assert!(snap["result"].as_str().unwrap().contains("button \"Pay\""), "{snap}");
    ok(server, &id, json!({"command": "click", "text": "Pay"})).await;
    let id = open(c, server, "/snapshot/modal.html").await;
    let e = fails(
        server,
        &id,
        json!({"command": "click", "role": "button", "name": "Delete project"}),
    )
    .await;
    assert_eq!(
        e,
        "\"Delete project\" exists but cannot be used (behind the open modal dialog \"Delete project?\")"
    );
    ok(server, &id, json!({"command": "press", "key": "Escape"})).await;
    assert_eq!(
        eval(server, &id, "return document.getElementById('confirm').open").await,
        false
    );
    ok(
        server,
        &id,
        json!({"command": "click", "role": "button", "name": "Delete project"}),
    )
    .await;
}

async fn cursor_in_iframe_case(c: &Client, server: &Server) {
    // The cursor shows when the page is in an iframe (an agent's preview pane).
    c.goto(&server.url("/plain.html")).await.unwrap();
    client_id(c, server).await;
    let frame_src = server.url("/actions/teach.html");
    c.execute(
        "const f = document.createElement('iframe'); f.src = arguments[0]; f.style.width = '800px'; f.style.height = '600px'; document.body.appendChild(f);",
        vec![json!(frame_src)],
    )
    .await
    .unwrap();
    let id = started_client(
        c,
        "const w = document.querySelector('iframe').contentWindow; const g = w && w.__browserAgent; return g && g.h ? g.clientId : null;",
        "the iframe",
    )
    .await;
    server.wait_listed(&id).await;
    // Watch what the client adds to the frame's document (the ripple lives for 500 ms only).
    eval(
        server,
        &id,
        "window.__added = []; new MutationObserver(rs => rs.forEach(r => r.addedNodes.forEach(n => n.id && window.__added.push(n.id)))).observe(document.documentElement, {childList: true}); return true",
    )
    .await;
    let (v, took) = run_timed(server, Some(&id), json!([{"command": "click", "text": "Generate"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    // It glided (≥ 280 ms) and is there: fixed, topmost, not hit-testable, not in the snapshot.
    assert!(took >= Duration::from_millis(280), "{took:?}");
    let cursor = eval(
        server,
        &id,
        "const c = document.getElementById('__browser-agent-cursor'); const s = getComputedStyle(c); return [s.position, s.pointerEvents, s.zIndex, c.textContent, c.hasAttribute('data-browser-agent-ui')]",
    )
    .await;
    assert_eq!(cursor, json!(["fixed", "none", "2147483647", "Agent", true]));
    assert!(!v["snapshot"].as_str().unwrap().contains("Agent"), "{v}");

    // The click left a ripple (gone again after its animation); the cursor is still shown, at
    // the button's centre, and fades out 1.5 s after the batch, keeping its position.
    let shown = eval(
        server,
        &id,
        "const c = document.getElementById('__browser-agent-cursor'); const r = document.evaluate(\"//button[.='Generate']\", document, null, 9, null).singleNodeValue.getBoundingClientRect(); return [window.__added, c.style.opacity, c.style.transform, `translate(${Math.round(r.left + r.width / 2)}px, ${Math.round(r.top + r.height / 2)}px)`]",
    )
    .await;
    assert_eq!(
        shown[0],
        json!(["__browser-agent-cursor", "__browser-agent-ripple"]),
        "{shown}"
    );
    assert_eq!(shown[1], "1", "{shown}");
    assert_eq!(shown[2], shown[3], "the cursor rests on the button's centre: {shown}");
    let at_rest = shown[2].clone();
    // Reading the page runs a batch, and each batch restarts the 1.5 s: so watch the style from
    // inside the page, wait without running batches, then read what happened.
    eval(
        server,
        &id,
        "const c = document.getElementById('__browser-agent-cursor'); window.__fade = []; new MutationObserver(() => __fade.push([c.style.opacity, c.style.transform])).observe(c, {attributes: true, attributeFilter: ['style']}); return true",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let faded = eval(
        server,
        &id,
        "return [__fade, !!document.getElementById('__browser-agent-ripple')]",
    )
    .await;
    assert_eq!(faded[0], json!([["0", at_rest]]), "it fades where it stopped: {faded}");
    assert_eq!(faded[1], false, "the ripple is removed: {faded}");

    // The next action brings it back from where it was (not from an edge) and glides from there:
    // every transform it takes on the way is its old position or the new target's centre.
    eval(
        server,
        &id,
        "const c = document.getElementById('__browser-agent-cursor'); window.__styles = []; new MutationObserver(rs => rs.forEach(r => __styles.push(r.oldValue))).observe(c, {attributes: true, attributeFilter: ['style'], attributeOldValue: true}); return true",
    )
    .await;
    let v = run(server, &id, json!([{"command": "click", "text": "Collection"}])).await;
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    let moves = eval(
        server,
        &id,
        "const c = document.getElementById('__browser-agent-cursor'); const d = document.createElement('div'); const r = document.evaluate(\"//button[.='Collection']\", document, null, 9, null).singleNodeValue.getBoundingClientRect(); return [[...__styles, c.getAttribute('style')].map(s => (d.setAttribute('style', s), [d.style.transform, d.style.opacity])), `translate(${Math.round(r.left + r.width / 2)}px, ${Math.round(r.top + r.height / 2)}px)`]",
    )
    .await;
    let target = &moves[1];
    let seen = moves[0].as_array().unwrap();
    assert!(seen.iter().all(|m| m[0] == at_rest || m[0] == *target), "{moves}");
    assert_eq!(seen.first().unwrap()[0], at_rest, "{moves}");
    assert_eq!(seen.last().unwrap()[0], *target, "{moves}");
    assert!(seen.iter().any(|m| m[1] == "1"), "it shows again: {moves}");
}

chromium_test!(the_interaction_log_says_what_was_done, Axum, |c, server| {
    // `fill`, `select` and `press` are in the page's interaction log with what they left (never a
    // password), and a double click is one `dblclick` entry, not two clicks.
    let id = open(c, &server, "/actions/form.html").await;
    eval(
        &server,
        &id,
        "document.body.insertAdjacentHTML('beforeend', '<label>PIN <input id=\"pin\" type=\"password\"></label>'); return true",
    )
    .await;
    let v = run(
        &server,
        &id,
        json!([
            {"command": "fill", "label": "Email", "text": "ada@example.com"},
            {"command": "select", "label": "Color", "option": "Green"},
            {"command": "press", "label": "Email", "key": "Escape"},
            {"command": "press", "key": "Control+k"},
            {"command": "dblclick", "text": "Account"},
            {"command": "fill", "label": "PIN", "text": "hunter2"},
            {"command": "click", "text": "Account"},
        ]),
    )
    .await;
    for step in v["steps"].as_array().expect("steps") {
        assert!(step["error"].is_null(), "{v}");
    }
    let done: Vec<(String, String, String)> = v["logs"]
        .as_array()
        .expect("logs")
        .iter()
        .filter(|e| e["type"] == "interaction")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("event"), s("target"), s("value"))
        })
        .collect();
    let want = [
        ("fill", "textbox \"Email\"", "ada@example.com"),
        ("select", "combobox \"Color\"", "Green"),
        ("press", "Escape in textbox \"Email\"", ""),
        ("press", "Control+k in ", ""),
        ("dblclick", "button \"Account\"", ""),
        ("fill", "textbox \"PIN\"", "(hidden)"),
        ("click", "button \"Account\"", ""),
    ];
    assert_eq!(done.len(), want.len(), "{done:?}\n{v}");
    for ((event, target, value), (e, t, val)) in done.iter().zip(want) {
        assert_eq!((event.as_str(), value.as_str()), (e, val), "{done:?}");
        assert!(target.starts_with(t), "{target:?} starts with {t:?}: {done:?}");
    }
    assert!(
        !v["logs"].to_string().contains("hunter2"),
        "a password stays out of the log: {v}"
    );
});

chromium_test!(
    a_ref_the_page_redrew_lands_on_the_same_rows_element,
    Axum,
    |c, server| {
        // A list redrawn after each change: every step's ref from the one snapshot is gone by the time
        // it runs, and each lands on the element that took its place in the same row.
        let id = open(c, &server, "/actions/rerender.html").await;
        let v = run(&server, &id, json!([{"command": "snapshot"}])).await;
        let text = v["steps"][0]["result"].as_str().unwrap_or_default().to_owned();
        // Each row: its checkbox's ref, then its delete button's, in the snapshot's order.
        let all: Vec<String> = text
            .split("[ref=")
            .skip(1)
            .map(|s| s.split(']').next().unwrap_or_default().to_owned())
            .collect();
        let (milk, eggs, bread) = (all[0..2].to_vec(), all[2..4].to_vec(), all[4..6].to_vec());
        assert!(
            text.find("milk") < text.find("eggs") && text.find("eggs") < text.find("bread"),
            "{text}"
        );
        assert_eq!(all.len(), 6, "{text}");
        let v = run(
            &server,
            &id,
            json!([
                {"command": "check", "ref": milk[0]},
                {"command": "click", "ref": bread[1]},
                {"command": "check", "ref": eggs[0]},
            ]),
        )
        .await;
        for step in v["steps"].as_array().expect("steps") {
            assert!(step["error"].is_null(), "{v}");
        }
        assert_eq!(
            eval(&server, &id, "JSON.stringify(items)").await,
            r#"[{"t":"milk","done":true},{"t":"eggs","done":true}]"#
        );
        // A ref whose row is gone is never given to another row's element: the error says what is
        // there, each with its row.
        let err = fails(&server, &id, json!({"command": "click", "ref": bread[1]})).await;
        assert!(err.contains("is gone"), "{err}");
        assert!(err.contains("button \"✖\"") && err.contains(" in \"milk"), "{err}");
        assert_eq!(eval(&server, &id, "items.length").await, 2);
    }
);

chromium_test!(type_with_no_target_types_into_the_focused_field, Axum, |c, server| {
    let page = open(c, &server, "/redrawn-list.html").await;
    // Nothing focused yet: the answer says what to do instead.
    let v = run(&server, &page, json!([{"command": "type", "text": "Call mum"}])).await;
    let error = v["steps"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("nothing is focused"), "{v}");
    // After a click into the field, as a person types.
    let v = run(
        &server,
        &page,
        json!([
            {"command": "click", "placeholder": "What needs to be done?"},
            {"command": "type", "text": "Call mum"},
            {"command": "press", "key": "Enter"},
            {"command": "snapshot"}
        ]),
    )
    .await;
    assert_eq!(
        v["steps"][1]["matched"].as_str(),
        Some("textbox \"What needs to be done?\" [ref=e1]"),
        "{v}"
    );
    assert!(
        v["steps"][3]["result"]
            .as_str()
            .unwrap_or_default()
            .contains("\"Call mum\""),
        "{v}"
    );
});

chromium_test!(a_snapshot_step_scoped_by_a_selector, Axum, |c, server| {
    let page = open(c, &server, "/redrawn-list.html").await;
    let v = run(&server, &page, json!([{"command": "snapshot", "selector": "#list"}])).await;
    let part = v["steps"][0]["result"].as_str().unwrap_or_default();
    assert!(
        part.contains("\"Walk the dog\"") && !part.contains("todos"),
        "only the list: {v}"
    );
    // A selector that names nothing fails as a target does.
    let v = run(&server, &page, json!([{"command": "snapshot", "selector": "#nothing"}])).await;
    assert!(
        v["steps"][0]["error"].as_str().unwrap_or_default().contains("#nothing"),
        "{v}"
    );
});
