//! `fill` on a slider drawn without an `<input type=range>` (`role=slider`: Radix's, MUI's, React
//! Aria's thumbs): a person sets one with its keys, and so does the step. It presses the arrow
//! key toward the value, reading `aria-valuenow` after each press, until the slider holds the
//! value or the next press would pass it (its step may not divide the distance).

use super::super::batch;
use super::super::resolve::Target;
use super::super::step::Outcome;
use super::keymap::{key_inits, Mods};
use super::reach::{centre, scroll_into_view};
use crate::cursor;
use crate::js::{attribute, fire, js_string};
use crate::text::{cat, parse_decimal, quote};
use web_sys::Element;

/// Most key presses one `fill` sends (a 0–1000 slider at step 1 from one end to the other is
/// 1,000: PageUp/PageDown first would be a guess at what the page does with them).
const MAX_PRESSES: u32 = 1_000;

/// A number attribute of the slider.
fn number(el: &Element, name: &str) -> Option<f64> {
    attribute(el, name).as_deref().and_then(parse_decimal)
}

/// What the slider says it holds (`aria-valuetext` where it has one, else the number).
fn shown(el: &Element) -> String {
    attribute(el, "aria-valuetext")
        .or_else(|| attribute(el, "aria-valuenow"))
        .unwrap_or_default()
}

/// One press of `key` on the slider: its keydown and keyup (the page's handler moves the value;
/// some commit on the keyup).
fn tap(el: &Element, key: &str) {
    let (init, _) = key_inits(key, Mods::default());
    fire(el, "KeyboardEvent", "keydown", &init);
    fire(el, "KeyboardEvent", "keyup", &init);
}

/// Sets the ARIA slider `t` to `text` (a number) with its arrow keys.
pub(super) async fn fill(t: &Target, text: &str) -> Outcome {
    let el = &t.el;
    let Some(want) = parse_decimal(text) else {
        return Err(cat(&[&t.label, " is a slider: fill takes a number, as in \"40\""]));
    };
    let Some(mut now) = number(el, "aria-valuenow") else {
        return Err(cat(&[
            &t.label,
            " says no value (aria-valuenow): drag its thumb instead",
        ]));
    };
    let (min, max) = (
        number(el, "aria-valuemin").unwrap_or(0.0),
        number(el, "aria-valuemax").unwrap_or(100.0),
    );
    if want < min || want > max {
        let bound = |name: &str, default: &str| attribute(el, name).unwrap_or_else(|| default.to_owned());
        return Err(cat(&[
            &t.label,
            " takes ",
            &bound("aria-valuemin", "0"),
            " to ",
            &bound("aria-valuemax", "100"),
            ", not ",
            text.trim(),
        ]));
    }
    if attribute(el, "aria-disabled").as_deref() == Some("true") {
        return Err(cat(&[&t.label, " is disabled"]));
    }
    scroll_into_view(el).await;
    batch::note(t);
    let (x, y) = centre(el);
    cursor::move_to(x, y).await;
    super::focus::focus(Some(el));
    let mark = super::settle::mark();
    let before = shown(el);
    // A handler that renders a frame later is read after the frame.
    let mut presses = 0;
    while now != want && presses < MAX_PRESSES {
        let key = if want > now { "ArrowRight" } else { "ArrowLeft" };
        tap(el, key);
        presses += 1;
        let mut next = number(el, "aria-valuenow");
        if next == Some(now) {
            super::settle::next_frame(el).await;
            next = number(el, "aria-valuenow");
        }
        let Some(next) = next.filter(|n| *n != now) else {
            let _ = super::settle::settle(mark, 0, false).await;
            return Err(cat(&[
                &t.label,
                " did not move on ",
                key,
                " (it holds ",
                &quote(&shown(el)),
                "): drag its thumb instead",
            ]));
        };
        // A press that would pass the value is not sent: the nearer of the two stays.
        let passed = (want - now).signum() != (want - next).signum() && next != want;
        if passed {
            if (next - want).abs() > (now - want).abs() {
                tap(el, if want > now { "ArrowLeft" } else { "ArrowRight" });
                super::settle::next_frame(el).await;
            }
            break;
        }
        now = next;
    }
    let _ = super::settle::settle(mark, 0, false).await;
    let after = shown(el);
    let mut out = cat(&["filled ", &quote(text.trim())]);
    if number(el, "aria-valuenow") != Some(want) {
        out.push_str("; the slider now holds ");
        out.push_str(&quote(&after));
        out.push_str(" (its step)");
    } else if after != text.trim() {
        out.push_str("; the slider says ");
        out.push_str(&quote(&after));
    }
    if before == after {
        out.push_str(" (unchanged)");
    }
    Ok(js_string(&out))
}
