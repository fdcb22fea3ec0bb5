//! ProofShot's `diff`: the screenshots of two sessions paired by step; for each pair a difference
//! image (`diff-NN.png`: changed pixels red over a faded copy of the later one) and the share of
//! changed pixels, written into the later session's folder and shown by its viewer.

use std::io::BufWriter;
use std::path::Path;

use serde::Serialize;
use serde_json::json;

use super::artifacts::read_steps;
use super::ProofError;
use crate::BrowserAgent;

/// A pixel counts as changed when a channel differs by more than this (of 255): PNG
/// screenshots of the same state are byte-identical, so this only absorbs anti-aliasing.
const THRESHOLD: u8 = 24;

/// One compared step.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[non_exhaustive]
pub struct StepDiff {
    /// The step number (1-based).
    pub step: usize,
    /// Share of changed pixels, in percent (two decimals); 100 when the sizes differ.
    pub changed: f64,
    /// The difference image's file name in the later session's folder.
    pub diff: Option<String>,
}

/// What `compare` found.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[non_exhaustive]
pub struct Comparison {
    /// The earlier session's folder.
    pub a: String,
    /// The later one, which got the difference images.
    pub b: String,
    /// The steps both sessions have a PNG screenshot for.
    pub steps: Vec<StepDiff>,
}

fn decode(path: &Path) -> Option<(u32, u32, Vec<u8>)> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).ok()?));
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        _ => return None,
    };
    if info.bit_depth != png::BitDepth::Eight {
        return None;
    }
    let mut rgba = Vec::with_capacity((info.width * info.height * 4) as usize);
    for px in buf[..info.buffer_size()].chunks(channels) {
        rgba.extend_from_slice(&px[..3]);
        rgba.push(if channels == 4 { px[3] } else { 255 });
    }
    Some((info.width, info.height, rgba))
}

/// The difference of two RGBA images of one size: the image and the changed share (0..1).
fn difference(a: &[u8], b: &[u8]) -> (Vec<u8>, f64) {
    let mut out = Vec::with_capacity(b.len());
    let mut changed = 0usize;
    for (pa, pb) in a.chunks(4).zip(b.chunks(4)) {
        if pa.iter().zip(pb).take(3).any(|(x, y)| x.abs_diff(*y) > THRESHOLD) {
            changed += 1;
            out.extend_from_slice(&[230, 30, 30, 255]);
        } else {
            // Faded, so the changes stand out and the page stays recognisable.
            out.extend(pb[..3].iter().map(|c| 255 - (255 - c) / 4));
            out.push(255);
        }
    }
    let total = (b.len() / 4).max(1);
    (out, changed as f64 / total as f64)
}

fn encode(path: &Path, width: u32, height: u32, rgba: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("png.tmp");
    let file = std::fs::File::create(&tmp)?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer.write_image_data(rgba).map_err(std::io::Error::other)?;
    writer.finish().map_err(std::io::Error::other)?;
    std::fs::rename(&tmp, path)
}

impl BrowserAgent {
    /// Compares two stopped sessions ([`Proof::compare`](crate::Proof::compare)).
    pub(crate) fn proof_compare(&self, a: &str, b: &str) -> Result<Comparison, ProofError> {
        let (dir_a, dir_b) = (self.proof_dir_of(a)?, self.proof_dir_of(b)?);
        let same = |x: &std::path::Path, y: &std::path::Path| match (x.canonicalize(), y.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => x == y,
        };
        if same(&dir_a, &dir_b) {
            return Err(ProofError::BadRequest(format!(
                "{a:?} and {b:?} are one session: compare two (an earlier run, then this one)"
            )));
        }
        let steps_a = read_steps(&dir_a).ok_or_else(|| ProofError::Unknown(a.to_owned()))?;
        let steps_b = read_steps(&dir_b).ok_or_else(|| ProofError::Unknown(b.to_owned()))?;
        let unwritable = |e: std::io::Error| ProofError::Unwritable {
            dir: dir_b.display().to_string(),
            why: e.to_string(),
        };
        // An earlier comparison's images go: the viewer shows only this one's.
        if let Ok(entries) = std::fs::read_dir(&dir_b) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("diff-") && name.ends_with(".png") {
                    std::fs::remove_file(entry.path()).map_err(unwritable)?;
                }
            }
        }
        let mut steps = Vec::new();
        for ((n, shot_a), (_, shot_b)) in steps_a.iter().zip(&steps_b) {
            let (Some(pa), Some(pb)) = (shot_a, shot_b) else {
                continue;
            };
            let (Some((wa, ha, ia)), Some((wb, hb, ib))) = (decode(pa), decode(pb)) else {
                continue;
            };
            if (wa, ha) != (wb, hb) {
                steps.push(StepDiff {
                    step: *n,
                    changed: 100.0,
                    diff: None,
                });
                continue;
            }
            let (image, share) = difference(&ia, &ib);
            let name = format!("diff-{n:02}.png");
            encode(&dir_b.join(&name), wb, hb, &image).map_err(unwritable)?;
            steps.push(StepDiff {
                step: *n,
                changed: (share * 10_000.0).round() / 100.0,
                diff: Some(name),
            });
        }
        // The later session's viewer shows them: its compare block, rewritten in place.
        let viewer = dir_b.join("viewer.html");
        if let Ok(html) = std::fs::read_to_string(&viewer) {
            let map: serde_json::Map<String, serde_json::Value> = steps
                .iter()
                .map(|s| (s.step.to_string(), json!({"changed": s.changed, "diff": s.diff})))
                .collect();
            let open = "<script id=\"proof-compare\" type=\"application/json\">";
            if let Some(start) = html.find(open).map(|i| i + open.len()) {
                if let Some(len) = html[start..].find("</script>") {
                    let embedded = serde_json::Value::Object(map).to_string().replace("</", "<\\/");
                    let html = format!("{}{}{}", &html[..start], embedded, &html[start + len..]);
                    let tmp = viewer.with_extension("html.tmp");
                    std::fs::write(&tmp, html)
                        .and_then(|()| std::fs::rename(&tmp, &viewer))
                        .map_err(unwritable)?;
                }
            }
        }
        Ok(Comparison {
            a: dir_a.display().to_string(),
            b: dir_b.display().to_string(),
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_replaces_the_last_one_and_needs_two_sessions() {
        // QA8: a session compared with itself had diffs written into it, and a comparison that
        // paired no steps left the earlier one's images beside a viewer that no longer shows them.
        let root = std::env::temp_dir().join(format!("ba-compare-{}", crate::util::random_hex(6)));
        let agent = BrowserAgent::builder()
            .enabled(true)
            .proof_dir(root.join("proof"))
            .build();
        for name in ["a", "b"] {
            let dir = root.join("proof").join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("session-log.json"), r#"[{"action":"click"}]"#).unwrap();
        }
        std::fs::write(root.join("proof/b/diff-01.png"), b"stale").unwrap();
        let err = agent.proof_compare("proof/a", "proof/a").unwrap_err();
        assert!(err.to_string().contains("are one session"), "{err}");
        let done = agent.proof_compare("proof/a", "proof/b").unwrap();
        assert!(done.steps.is_empty());
        assert!(!root.join("proof/b/diff-01.png").exists(), "the earlier image went");
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn difference_counts_changed_pixels_only() {
        let a = [0, 0, 0, 255, 10, 10, 10, 255, 200, 200, 200, 255, 0, 0, 0, 255];
        let mut b = a;
        b[4] = 30; // within the threshold
        b[8] = 0; // changed
        let (img, share) = difference(&a, &b);
        assert_eq!(share, 0.25);
        assert_eq!(&img[8..12], &[230, 30, 30, 255]);
        assert_eq!(difference(&a, &a).1, 0.0);
    }
}
