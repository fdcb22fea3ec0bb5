//! The screenshot routes: the page's upload (`POST {prefix}/screenshots`, page key required,
//! [`Config::screenshot_upload_limit`](crate::Config::screenshot_upload_limit)) and the agent's
//! read (`GET {prefix}/screenshots/{id}.{png|jpg}`).

use bytes::Bytes;
use http::{header, request::Parts, HeaderValue, Response, StatusCode};

use super::response::{failure, json_response};
use crate::error::ScreenshotError;
use crate::protocol::screenshot::{param, Format, ScreenshotInfo, MAX_SIDE, METHODS};
use crate::protocol::{self, MAX_ID_LEN};
use crate::screenshots::Screenshot;
use crate::util::{truncate_chars, Params};
use crate::BrowserAgent;

/// At most this many warnings of this many chars are kept per screenshot.
const MAX_WARNINGS: usize = 16;
const MAX_WARNING_CHARS: usize = 200;

impl BrowserAgent {
    /// `POST {prefix}/screenshots?client=&width=&height=&method=&ms=&warn=&page=`: stores the
    /// body and answers `201` with its [`ScreenshotInfo`].
    pub(super) fn screenshot_upload(&self, parts: &Parts, body: &Bytes) -> Response<Bytes> {
        match self.store_upload(parts, body) {
            Ok(info) => json_response(StatusCode::CREATED, &serde_json::to_value(info).expect("serializes")),
            Err(why) => failure(&why),
        }
    }

    fn store_upload(&self, parts: &Parts, body: &Bytes) -> Result<ScreenshotInfo, ScreenshotError> {
        let got = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let format = Format::from_content_type(got).ok_or_else(|| ScreenshotError::NotImage {
            path: parts.uri.path().to_owned(),
            got: got.to_owned(),
        })?;
        if !format.sniff(body) {
            return Err(ScreenshotError::NotDecodable(format.content_type()));
        }
        let params = Params::parse(parts.uri.query());
        let client = params.last(protocol::param::CLIENT).unwrap_or("");
        if client.is_empty() || client.len() > MAX_ID_LEN {
            return Err(ScreenshotError::Param {
                name: "client",
                value: client.to_owned(),
                expected: "the page's client id is required",
            });
        }
        let side = |name: &'static str| -> Result<u32, ScreenshotError> {
            let value = params.last(name).unwrap_or("");
            value
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_SIDE).contains(n))
                .ok_or_else(|| ScreenshotError::Param {
                    name,
                    value: value.to_owned(),
                    expected: "expected pixels, 1 to 16384",
                })
        };
        let (width, height) = (side(param::WIDTH)?, side(param::HEIGHT)?);
        let method = params.last(param::METHOD).unwrap_or("");
        if method == "auto" || !METHODS.contains(&method) {
            return Err(ScreenshotError::Param {
                name: "method",
                value: method.to_owned(),
                expected: "expected html-in-canvas or foreignobject",
            });
        }
        let ms = params
            .last(param::MS)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
        let limits = self.limits();
        let warnings = params
            .all(param::WARN)
            .take(MAX_WARNINGS)
            .map(|w| {
                let mut w = w.to_owned();
                truncate_chars(&mut w, MAX_WARNING_CHARS);
                w
            })
            .collect();
        let mut page = params.last(param::PAGE).unwrap_or("").to_owned();
        truncate_chars(&mut page, limits.max_field);
        let page = self.inner.config.redaction.text(&page).into_owned();
        let shot = Screenshot {
            info: ScreenshotInfo {
                id: String::new(),
                url: String::new(),
                width,
                height,
                bytes: body.len(),
                ms: ms.max(0.0).round() as u64,
                method: method.to_owned(),
                format,
                warnings,
                client: client.to_owned(),
                page,
                data: None,
            },
            bytes: body.clone(),
        };
        // Absolute from the address the page reached us at, so an agent can fetch it as it is.
        let host = parts.headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let prefix = &self.inner.config.prefix;
        let stored = self
            .inner
            .screenshots
            .insert_with_url(shot, |info| {
                let path = format!(
                    "{prefix}{}/{}.{}",
                    protocol::SCREENSHOTS_PATH,
                    info.id,
                    info.format.extension()
                );
                host.map_or(path.clone(), |host| format!("http://{host}{path}"))
            })
            .map_err(|e| ScreenshotError::Store(e.to_string()))?;
        Ok(stored.info)
    }

    /// `GET {prefix}/screenshots/{id}.{png|jpg}`: the image, or 404 naming what is kept.
    pub(super) fn screenshot_file(&self, name: &str) -> Response<Bytes> {
        let found = name
            .rsplit_once('.')
            .and_then(|(id, ext)| Some((self.inner.screenshots.get(id)?, ext)))
            .filter(|(shot, ext)| {
                *ext == shot.info.format.extension() || (*ext == "jpeg" && shot.info.format == Format::Jpeg)
            });
        let Some((shot, _)) = found else {
            let held: Vec<String> = self
                .inner
                .screenshots
                .list()
                .iter()
                .map(|i| format!("{}.{}", i.id, i.format.extension()))
                .collect();
            return failure(&ScreenshotError::NotFound {
                id: name.to_owned(),
                held: if held.is_empty() {
                    "none".into()
                } else {
                    held.join(", ")
                },
            });
        };
        let mut res = Response::new(shot.bytes);
        let h = res.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(shot.info.format.content_type()),
        );
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
        res
    }
}
