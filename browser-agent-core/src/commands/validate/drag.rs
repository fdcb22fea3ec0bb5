//! The `drag` step's destination, checked before anything runs: exactly one of `to` (a ref, or an
//! object of target fields) and the offset `dx`/`dy` (bounded CSS pixels). A ref in `to` is
//! written as `{"ref":"e12"}`, so the page reads one form.

use serde_json::{Map, Value};

use crate::protocol::{FieldKind, Ref, DRAG_DX, DRAG_DY, DRAG_TO, REF_FORM, TARGET_FIELDS, TARGET_STEP_FIELDS};

/// How far an offset may reach (CSS pixels, either way): farther than any viewport, so a typo
/// (`"dx": 1e9`) is refused here rather than failing in the page.
const MAX_OFFSET: f64 = 20_000.0;

/// A step that says where to drop, as the texts that refuse one show it.
const EXAMPLE: &str = r#"e.g. {"command":"drag","ref":"e3","to":"e7"} or {"command":"drag","text":"Card","to":{"text":"Done"}} or {"command":"drag","ref":"e3","dx":0,"dy":120}"#;

/// Checks (and normalizes) a `drag` step's destination.
pub(super) fn destination(step: &mut Value) -> Result<(), String> {
    let given = |v: Option<&Value>| !matches!(v, None | Some(Value::Null)) && v != Some(&Value::String(String::new()));
    let mut offset = Vec::new();
    for name in [DRAG_DX, DRAG_DY] {
        let v = step.get(name);
        if !given(v) {
            continue;
        }
        match v.and_then(Value::as_f64) {
            Some(n) if n.abs() <= MAX_OFFSET => offset.push(n),
            _ => {
                return Err(format!(
                    "invalid {name} {}: expected CSS pixels from -{MAX_OFFSET} to {MAX_OFFSET} ({}), {EXAMPLE}",
                    v.map(Value::to_string).unwrap_or_default(),
                    if name == DRAG_DX {
                        "negative: to the left"
                    } else {
                        "negative: up"
                    }
                ))
            }
        }
    }
    let has_to = given(step.get(DRAG_TO));
    match (has_to, offset.is_empty()) {
        (false, true) => Err(format!(
            "drag needs a destination: \"to\" (a ref, or target fields like {{\"text\":\"Done\"}}) or an offset \"dx\"/\"dy\" in CSS pixels, {EXAMPLE}"
        )),
        (true, false) => Err(format!(
            "\"to\" and \"dx\"/\"dy\" both say where to drop: send one, {EXAMPLE}"
        )),
        (false, false) if offset.iter().all(|n| *n == 0.0) => Err(format!(
            "dx and dy are 0: the drag would end where it starts, {EXAMPLE}"
        )),
        (false, false) => Ok(()),
        (true, true) => {
            let to = step.get_mut(DRAG_TO).expect("given");
            normalize_to(to)
        }
    }
}

/// `to` as the page reads it: `{"ref":"e12"}` for a ref, the target object checked field by field.
fn normalize_to(to: &mut Value) -> Result<(), String> {
    match to {
        Value::String(s) => match Ref::read(s) {
            Some(r) => {
                let mut m = Map::new();
                m.insert("ref".into(), Value::String(r.to_string()));
                *to = Value::Object(m);
                Ok(())
            }
            None => Err(format!(
                "invalid to {to}: a ref from a snapshot ({REF_FORM}) or target fields, e.g. \"to\":{{\"text\":\"Done\"}}"
            )),
        },
        Value::Object(m) => {
            let names = || {
                TARGET_STEP_FIELDS
                    .iter()
                    .map(|(f, _)| *f)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if let Some(k) = m.keys().find(|k| !TARGET_STEP_FIELDS.iter().any(|(f, _)| f == k)) {
                return Err(format!("\"to\" takes the target fields {}; not {k:?}", names()));
            }
            for (name, kind) in TARGET_STEP_FIELDS {
                let Some(v) = m.get_mut(*name) else { continue };
                let ok = match (kind, &*v) {
                    (_, Value::Null) => true,
                    (FieldKind::Ref, Value::String(s)) if s.is_empty() => true,
                    (FieldKind::Ref, Value::String(s)) => match Ref::read(s) {
                        Some(r) => {
                            *v = Value::String(r.to_string());
                            true
                        }
                        None => false,
                    },
                    (FieldKind::Index, v) => v.as_u64().is_some_and(|n| n <= u64::from(u32::MAX)),
                    (FieldKind::Ref, _) => false,
                    (_, v) => v.is_string() || v.is_number(),
                };
                if !ok {
                    return Err(format!(
                        "invalid to.{name} {v}: {}",
                        match kind {
                            FieldKind::Ref => format!("expected a ref from a snapshot ({REF_FORM})"),
                            FieldKind::Index => "expected a whole number, 0 or more (0 = the first match)".into(),
                            _ => "expected a string".into(),
                        }
                    ));
                }
            }
            let targeted = TARGET_FIELDS.iter().any(|f| match m.get(*f) {
                Some(Value::String(s)) => !s.is_empty(),
                Some(Value::Number(_)) => true,
                _ => false,
            });
            if targeted {
                Ok(())
            } else {
                Err(format!(
                    "\"to\" names no target: give one of {} (\"nth\" picks among matches), e.g. \"to\":{{\"text\":\"Done\"}}",
                    TARGET_FIELDS.join(", ")
                ))
            }
        }
        other => Err(format!(
            "invalid to {other}: a ref from a snapshot ({REF_FORM}) or target fields, e.g. \"to\":{{\"text\":\"Done\"}}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::validate_steps;
    use serde_json::{json, Value};

    fn check(step: Value) -> Result<Value, String> {
        let mut steps = [step];
        validate_steps(&mut steps).map_err(|e| e.to_string())?;
        let [step] = steps;
        Ok(step)
    }

    #[test]
    fn a_destination_is_a_ref_target_fields_or_an_offset() {
        let s = check(json!({"command": "drag", "ref": "e3", "to": "E7"})).unwrap();
        assert_eq!(s["to"], json!({"ref": "e7"}), "a ref is written as the page reads it");
        let s = check(json!({"command": "drag", "text": "Card", "to": {"role": "list", "name": "Done", "nth": 1}}))
            .unwrap();
        assert_eq!(s["to"]["name"], "Done");
        let s = check(json!({"command": "drag", "ref": "e3", "to": {"ref": "[ref=E9]"}})).unwrap();
        assert_eq!(s["to"], json!({"ref": "e9"}));
        assert!(check(json!({"command": "drag", "ref": "e3", "dx": -40})).is_ok());
        assert!(check(json!({"command": "drag", "ref": "e3", "dy": 120, "dx": null})).is_ok());
    }

    #[test]
    fn a_bad_destination_is_refused_naming_the_field() {
        let err = |step: Value| check(step).unwrap_err();
        let e = err(json!({"command": "drag", "ref": "e3"}));
        assert!(
            e.starts_with("step 1 (nothing ran): drag needs a destination: \"to\""),
            "{e}"
        );
        let e = err(json!({"command": "drag", "ref": "e3", "to": "e7", "dx": 10}));
        assert!(e.contains("\"to\" and \"dx\"/\"dy\" both say where to drop"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "dx": 0, "dy": 0}));
        assert!(e.contains("dx and dy are 0"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "dx": "10"}));
        assert!(e.contains("invalid dx \"10\": expected CSS pixels"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "dy": 1e9}));
        assert!(e.contains("invalid dy"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "to": "Done"}));
        assert!(e.contains("invalid to \"Done\": a ref from a snapshot"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "to": {"txt": "Done"}}));
        assert!(
            e.contains("\"to\" takes the target fields") && e.contains("not \"txt\""),
            "{e}"
        );
        let e = err(json!({"command": "drag", "ref": "e3", "to": {"nth": 1}}));
        assert!(e.contains("\"to\" names no target"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "to": {"ref": "x"}}));
        assert!(e.contains("invalid to.ref \"x\""), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "to": {"text": "A", "nth": -1}}));
        assert!(e.contains("invalid to.nth -1"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "to": ["e7"]}));
        assert!(e.contains("invalid to [\"e7\"]"), "{e}");
        let e = err(json!({"command": "drag", "to": "e7"}));
        assert!(e.contains("drag needs a target"), "{e}");
        let e = err(json!({"command": "drag", "ref": "e3", "to": "e7", "steps": 5}));
        assert!(e.contains("a drag step takes"), "{e}");
    }
}
