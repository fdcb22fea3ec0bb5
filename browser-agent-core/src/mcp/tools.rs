//! The tools: one fixed list (`tools.json`, checked against [`protocol::COMMANDS`](crate::protocol::COMMANDS)
//! by the tests), each call built on what the JSON routes use (`console_json`, `page_json`,
//! `snapshot_text`, `run_with_hint`, `actions_json`), its answer rendered by [`super::text`].
//! A tool that cannot do its work answers `isError: true` with a text saying why and what to do;
//! only an unknown tool (or a call without a name) is a JSON-RPC error.

use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use super::text;
use crate::commands::history::batch_id;
use crate::commands::Batch;
use crate::error::RpcError;
use crate::logs::LogQuery;
use crate::protocol::{field, param};
use crate::BrowserAgent;

/// The tool list as `tools/list` answers it.
static TOOLS: &str = include_str!("tools.json");

/// The tools, parsed once.
pub(crate) fn list() -> &'static Value {
    static LIST: OnceLock<Value> = OnceLock::new();
    LIST.get_or_init(|| serde_json::from_str(TOOLS).expect("tools.json is valid JSON"))
}

/// The tools by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Logs,
    Pages,
    Snapshot,
    Run,
    Actions,
}

const NAMES: [(&str, Tool); 5] = [
    ("browser_logs", Tool::Logs),
    ("browser_pages", Tool::Pages),
    ("browser_snapshot", Tool::Snapshot),
    ("browser_run", Tool::Run),
    ("browser_actions", Tool::Actions),
];

fn names() -> String {
    NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// A tool's answer: its text, and whether the tool failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    pub(crate) text: String,
    pub(crate) failed: bool,
    /// Images after the text (screenshots of `browser_run`): (MIME type, base64).
    pub(crate) images: Vec<(&'static str, String)>,
}

impl Output {
    fn ok(text: String) -> Output {
        Output {
            text,
            failed: false,
            images: Vec::new(),
        }
    }

    fn failed(text: String) -> Output {
        Output {
            text,
            failed: true,
            images: Vec::new(),
        }
    }

    /// The `tools/call` result: one text item and the images, `isError` only when it failed.
    fn into_result(self) -> Value {
        let mut content = vec![json!({"type": "text", "text": self.text})];
        for (mime, data) in self.images {
            content.push(json!({"type": "image", "mimeType": mime, "data": data}));
        }
        let mut result = json!({ "content": content });
        if self.failed {
            result["isError"] = true.into();
        }
        result
    }
}

impl BrowserAgent {
    /// `tools/call {name, arguments}`; `origin` is where the app is, named when no page is open.
    pub(crate) async fn call_tool(&self, params: Option<Value>, origin: Option<String>) -> Result<Value, RpcError> {
        let params = params.unwrap_or(Value::Null);
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(RpcError::InvalidParams(format!(
                "tools/call needs params.name, one of {}",
                names()
            )));
        };
        if name.starts_with(crate::page_tools::MCP_PREFIX) {
            return self.call_page_tool(name, params.get("arguments"), origin).await;
        }
        let Some(tool) = NAMES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t) else {
            return Err(RpcError::InvalidParams(format!(
                "unknown tool {name:?}; the tools are {}",
                names()
            )));
        };
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args.clone(),
            Some(other) => {
                let why = format!("{name}: \"arguments\" must be an object, not {other}");
                return Ok(Output::failed(why).into_result());
            }
        };
        let out = match self.run_tool(tool, &args, origin).await {
            Ok(out) => out,
            Err(why) => Output::failed(format!("{name}: {why}")),
        };
        Ok(out.into_result())
    }

    async fn run_tool(&self, tool: Tool, args: &Map<String, Value>, origin: Option<String>) -> Result<Output, String> {
        Ok(match tool {
            Tool::Logs if args.get("type").and_then(Value::as_str) == Some("notes") => {
                // Notes ride on the logs tool: the developer's feedback, with their screenshots.
                let client = string(args, "client")?;
                let since = args.get("afterSeq").and_then(Value::as_u64);
                let mut notes = self.inner.notes.list(client.as_deref(), since);
                if let Some(limit) = args.get("limit").and_then(Value::as_u64) {
                    let keep = notes.len().saturating_sub(limit as usize);
                    notes.drain(..keep);
                }
                let images = notes
                    .iter()
                    .rev()
                    .filter_map(|n| self.inner.screenshots.get(&n.screenshot.as_ref()?.id))
                    .take(4)
                    .map(|shot| (shot.info.format.content_type(), crate::util::base64_encode(&shot.bytes)))
                    .collect();
                Output {
                    text: text::notes(&notes, self.inner.notes.last_seq()),
                    failed: false,
                    images,
                }
            }
            Tool::Logs => {
                let query = logs_query(args)?;
                self.inner.logs.check_batches(&query)?;
                if let Some(err) = query.client.as_deref().and_then(|c| self.unknown_client(c)) {
                    return Ok(Output::failed(err.to_string()));
                }
                let console = self.console_json(&query);
                let mut out = text::logs(&console, self.app_url(origin).as_deref());
                if query.kind.as_deref() == Some(crate::protocol::entry_type::SERVER)
                    && console["logs"].as_array().is_some_and(Vec::is_empty)
                {
                    out.push_str(text::NO_SERVER_ENTRIES);
                }
                Output::ok(out)
            }
            Tool::Pages => {
                if let Some(name) = args.keys().next() {
                    return Err(format!("unknown argument {name:?}: browser_pages takes none"));
                }
                Output::ok(text::pages(&self.page_json(), self.app_url(origin).as_deref()))
            }
            Tool::Snapshot => {
                // The `snapshot` step itself: its view fields (diff, ref, filter, offset, limit,
                // viewport, full, budget) are checked with the step, as for `/run` and `/snapshot`.
                let mut step = args.clone();
                let client = string(args, "client")?;
                step.remove("client");
                step.insert("command".to_owned(), Value::from("snapshot"));
                match self.snapshot_text(client, Value::Object(step), origin).await {
                    Ok(answer) => Output::ok(text::snapshot(&answer.client_id, &answer.text)),
                    Err(err) => Output::failed(text::run_error(&err)),
                }
            }
            Tool::Run => {
                // The body of `POST {prefix}/run`: the same parser, the same checks, the same texts.
                let mut args = args.clone();
                if let Some(Value::Array(steps)) = args.get_mut("steps") {
                    screenshot_formats(steps, self.proof_status().is_some());
                }
                let batch = Batch::from_value(&Value::Object(args)).map_err(|e| e.to_string())?;
                // A page loaded again since the last batch: its answer says so.
                let now = crate::util::now_ms();
                let reloaded = self
                    .batch_target(batch.client.as_deref(), now)
                    .and_then(|c| Some((self.reloaded_since_last_batch(&c, now)?, c)));
                match self.run_placed(batch, origin).await {
                    (n, Ok(mut result)) => {
                        // The header names the batch once; its own entries need no time of their
                        // own (they happened in the `duration` that just ended), the others
                        // (after it, or before) say when.
                        self.place_logs(&mut result.logs);
                        let id = batch_id(n);
                        for entry in result.logs.iter_mut().filter_map(Value::as_object_mut) {
                            if entry.get(field::BATCH).and_then(Value::as_str) == Some(id.as_str()) {
                                entry.remove(field::BATCH);
                                entry.remove(field::AGO);
                            }
                        }
                        let mut text = format!("batch {id} · {}", text::batch(&result));
                        let header = text.find('\n').map_or(text.len(), |i| i + 1);
                        if let Some((reloaded, _)) = reloaded.filter(|(_, c)| *c == result.client_id) {
                            text.insert_str(header, &(reloaded.note() + "\n"));
                        }
                        // A navigation that ended elsewhere (a form's POST redirected): where.
                        let now_at = self.inner.clients.page_of(&result.client_id);
                        if let Some(line) = now_at.and_then(|url| text::arrived_elsewhere(&result.steps, &url)) {
                            let line = self.inner.config.redaction.text(&line).into_owned();
                            text.insert_str(header, &(line + "\n"));
                        }
                        Output {
                            failed: result.error.is_some(),
                            text,
                            images: self.step_images(&result),
                        }
                    }
                    (_, Err(err)) => Output::failed(text::run_error(&err)),
                }
            }
            Tool::Actions if args.contains_key("proof") => {
                // Proof sessions ride on the action log's tool: one tool fewer in every agent's context.
                let answer = match string(args, "proof")?.as_deref() {
                    Some("start") => {
                        let mut options = Value::Object(args.clone());
                        let fields = options.as_object_mut().expect("an object");
                        fields.remove("proof");
                        fields.remove("client");
                        crate::proof::ProofOptions::from_json(&options)
                            .and_then(|o| self.proof_start(o))
                            .map(|s| text::proof_started(&s))
                    }
                    Some("stop") => self.proof_stop().map(|r| text::proof_stopped(&r)),
                    Some("status") => Ok(self
                        .proof_status()
                        .map_or("No proof session is running.\n".to_owned(), |s| text::proof_started(&s))),
                    Some(other) => return Err(format!("\"proof\" must be start, stop or status, not {other:?}")),
                    None => return Err("\"proof\" must be start, stop or status".into()),
                };
                match answer {
                    Ok(text) => Output::ok(text),
                    Err(e) => Output::failed(text::proof_error(&e)),
                }
            }
            Tool::Actions => {
                let client = string(args, "client")?;
                if let Some(err) = client.as_deref().and_then(|c| self.unknown_client(c)) {
                    return Ok(Output::failed(err.to_string()));
                }
                Output::ok(text::actions(&self.actions_json(client.as_deref())))
            }
        })
    }
}

impl BrowserAgent {
    /// The screenshots a batch took, as image content (those the store still holds).
    fn step_images(&self, result: &crate::BatchResult) -> Vec<(&'static str, String)> {
        result
            .steps
            .iter()
            .filter(|s| s.command == "screenshot" && s.error.is_none())
            .filter_map(|s| s.result.as_ref()?.get("id")?.as_str())
            .filter_map(|id| self.inner.screenshots.get(id))
            .map(|shot| (shot.info.format.content_type(), crate::util::base64_encode(&shot.bytes)))
            .collect()
    }
}

/// A `screenshot` step's `format` over MCP: as asked, in any case (`"PNG"`, `"jpeg"`); when not
/// asked, JPEG (a vision model reads either; JPEG is a third of the bytes), or PNG while a proof
/// session records (`proof`), so the agent's own pictures in it are the format of the proof's.
fn screenshot_formats(steps: &mut [Value], proof: bool) {
    use crate::protocol::screenshot::FORMAT;
    for step in steps.iter_mut().filter_map(Value::as_object_mut) {
        if step.get("command").and_then(Value::as_str) != Some("screenshot") {
            continue;
        }
        match step.get_mut(FORMAT) {
            Some(Value::String(f)) => f.make_ascii_lowercase(),
            Some(_) => {}
            None => {
                step.insert(FORMAT.to_owned(), Value::from(if proof { "png" } else { "jpeg" }));
            }
        }
    }
}

/// `browser_logs`'s arguments as `GET {prefix}/console` parameters, read by the same parser.
fn logs_query(args: &Map<String, Value>) -> Result<LogQuery, String> {
    // The parameters it takes besides `level` (a name or a list of names): strings, and numbers.
    const TEXTS: [&str; 2] = ["type", "client"];
    const NUMBERS: [&str; 3] = ["sinceMs", "afterSeq", "limit"];
    // A batch: `"b7"`, `"last"`, or its number.
    const BATCHES: [&str; 2] = [param::BATCH, param::SINCE_BATCH];
    let takes = |k: &str| k == "level" || TEXTS.contains(&k) || NUMBERS.contains(&k) || BATCHES.contains(&k);
    if let Some(name) = args.keys().find(|k| !takes(k)) {
        return Err(crate::error::QueryError::Unknown(name.clone()).to_string());
    }
    let mut pairs: Vec<(&str, String)> = Vec::new();
    match args.get("level") {
        None | Some(Value::Null) => {}
        Some(Value::String(level)) => pairs.push(("level", level.clone())),
        Some(Value::Array(levels)) => {
            let names: Option<Vec<&str>> = levels.iter().map(Value::as_str).collect();
            let names = names.ok_or("\"level\" must be an array of level names (debug, log, info, warn, error)")?;
            pairs.push(("level", names.join(",")));
        }
        Some(_) => return Err("\"level\" must be an array of level names (debug, log, info, warn, error)".into()),
    }
    for name in TEXTS {
        if let Some(value) = string(args, name)? {
            pairs.push((name, value));
        }
    }
    for name in BATCHES {
        match args.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) => pairs.push((name, n.to_string())),
            Some(Value::String(s)) => pairs.push((name, s.clone())),
            Some(other) => {
                return Err(format!(
                    "\"{name}\" must be a batch id (\"b7\") or \"last\", not {other}"
                ))
            }
        }
    }
    for name in NUMBERS {
        match args.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) => pairs.push((name, n.to_string())),
            Some(Value::String(s)) => pairs.push((name, s.clone())),
            Some(other) => return Err(format!("\"{name}\" must be a non-negative integer, not {other}")),
        }
    }
    LogQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).map_err(|e| e.to_string())
}

fn string(args: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("\"{name}\" must be a string, not {other}")),
    }
}
