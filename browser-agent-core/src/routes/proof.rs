//! The proof session's routes (agent access): `GET {prefix}/proof` (the open session, or
//! `{"open": false}`), `POST {prefix}/proof/start {"description", "dir"?, "screenshots"?, "force"?}`,
//! `POST {prefix}/proof/stop`, `POST {prefix}/proof/compare {"a", "b"}`, and
//! `GET {prefix}/proof/{id}/summary` (the SUMMARY.md, as Markdown).

use bytes::Bytes;
use http::{header, request::Parts, HeaderValue, Method, Response, StatusCode};
use serde_json::{json, Value};

use super::response::{error, json_response};
use super::ProofRoute;
use crate::error::Refusal;
use crate::proof::{ProofError, ProofOptions};
use crate::security;
use crate::BrowserAgent;

fn proof_failure(e: &ProofError) -> Response<Bytes> {
    error(e.status(), e.to_string())
}

impl BrowserAgent {
    pub(super) fn proof_route(&self, route: ProofRoute, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        if parts.method == Method::POST && !security::is_json(&parts.headers) && !body.is_empty() {
            let route = match route {
                ProofRoute::Start => "/proof/start",
                ProofRoute::Stop => "/proof/stop",
                _ => "/proof/compare",
            };
            return super::response::failure(&Refusal::NotJson { route });
        }
        // A body-less POST (stop) is fine; one with a body must be JSON (checked above).
        let json_body = || -> Result<Value, ProofError> {
            if body.iter().all(u8::is_ascii_whitespace) {
                return Ok(json!({}));
            }
            serde_json::from_slice(body).map_err(|e| ProofError::BadRequest(format!("body is not valid JSON: {e}")))
        };
        let answer = match route {
            ProofRoute::Status => Ok(match self.proof_status() {
                Some(s) => json!({"open": true, "session": s}),
                None => json!({"open": false}),
            }),
            ProofRoute::Start => json_body()
                .and_then(|v| ProofOptions::from_json(&v))
                .and_then(|o| self.proof_start(o))
                .map(|s| serde_json::to_value(s).expect("serializes")),
            ProofRoute::Stop => self.proof_stop().map(|r| serde_json::to_value(r).expect("serializes")),
            ProofRoute::Compare => json_body().and_then(|v| {
                let field = |k: &str| {
                    v.get(k).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
                        ProofError::BadRequest(format!(
                            "field \"{k}\" must name a stopped session (its id or folder): {{\"a\": \"p1\", \"b\": \"p2\"}}"
                        ))
                    })
                };
                let (a, b) = (field("a")?, field("b")?);
                self.proof_compare(&a, &b).map(|c| serde_json::to_value(c).expect("serializes"))
            }),
            ProofRoute::Summary(id) => {
                return match self.proof_summary(&id) {
                    Ok(md) => {
                        let mut res = Response::new(Bytes::from(md));
                        let h = res.headers_mut();
                        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/markdown; charset=utf-8"));
                        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                        res
                    }
                    Err(e) => proof_failure(&e),
                }
            }
        };
        match answer {
            Ok(v) => json_response(StatusCode::OK, &v),
            Err(e) => proof_failure(&e),
        }
    }
}
