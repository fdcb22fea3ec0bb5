//! JSON-RPC 2.0 messages: what a message is (request, notification, response), and the answers.

use serde_json::{json, Value};

use crate::error::RpcError;

/// What a JSON-RPC message is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    /// A call that wants an answer.
    Request {
        /// Its id (a string or a number).
        id: Value,
        /// The method.
        method: String,
        /// Its params, when given.
        params: Option<Value>,
    },
    /// A call without an id: answered with 202 and nothing else.
    Notification,
    /// The client's answer to a server request (this server sends none): accepted and dropped.
    Response,
}

/// Reads one message; the error carries the id when the message had a usable one.
pub(crate) fn classify(msg: Value) -> Result<Message, (Option<Value>, RpcError)> {
    let Value::Object(mut obj) = msg else {
        return Err((
            None,
            RpcError::InvalidRequest(
                "a message must be a JSON object {\"jsonrpc\":\"2.0\",\"id\",\"method\",\"params\"}".into(),
            ),
        ));
    };
    let id = match obj.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
        Some(other) => {
            return Err((
                None,
                RpcError::InvalidRequest(format!("\"id\" must be a string or a number, not {other}")),
            ))
        }
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((id, RpcError::InvalidRequest("\"jsonrpc\" must be \"2.0\"".into())));
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return Err((id, RpcError::InvalidRequest("\"method\" must be a string".into()))),
        None if obj.contains_key("result") || obj.contains_key("error") => return Ok(Message::Response),
        None => {
            return Err((
                id,
                RpcError::InvalidRequest(
                    "the message has no \"method\" (nor \"result\"/\"error\" of a response)".into(),
                ),
            ))
        }
    };
    let params = obj.remove("params");
    if params.as_ref().is_some_and(|p| !p.is_object() && !p.is_array()) {
        return Err((id, RpcError::InvalidRequest("\"params\" must be an object".into())));
    }
    Ok(match id {
        Some(id) => Message::Request { id, method, params },
        None => Message::Notification,
    })
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
pub(crate) fn success(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// `{"jsonrpc":"2.0","id":…|null,"error":{"code","message"[,"data"]}}`.
pub(crate) fn failure(id: Option<Value>, err: &RpcError) -> Value {
    let mut error = json!({"code": err.code(), "message": err.to_string()});
    if let Some(data) = err.data() {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": error})
}
