//! The page's own tools as this host reads them: which live pages have tools, their listings
//! (read with a `tools` step, cached by revision) and the names MCP gives them. The registry,
//! the wire checks and the names are [`crate::page_tools`].

use std::sync::Arc;

use serde_json::{json, Value};

use crate::commands::{Batch, RunError};
use crate::page_tools::{mcp_name, parse_listing, Exposed, Listing, LIST_TIMEOUT, MCP_NAME_MAX};
use crate::BrowserAgent;

impl BrowserAgent {
    /// The live pages that registered tools, with their URLs.
    fn pages_with_tools(&self) -> Vec<(String, u64, String)> {
        let now = crate::util::now_ms();
        let clients = &self.inner.clients;
        self.inner
            .page_tools
            .revisions()
            .into_iter()
            .filter_map(|(client, rev)| {
                let record = clients.get(&client).filter(|r| clients.is_alive(r, now))?;
                Some((client, rev, record.page))
            })
            .collect()
    }

    /// What identifies the page tools now (the live pages with tools and their revisions), as
    /// hex: the MCP transports compare it to say `notifications/tools/list_changed`.
    pub(crate) fn page_tools_fingerprint(&self) -> String {
        let pages = self.pages_with_tools();
        let parts: Vec<String> = pages.iter().map(|(c, r, _)| format!("{c}:{r}")).collect();
        let joined = parts.join(",");
        format!("{:016x}", crate::util::fnv1a64(&[joined.as_bytes()]))
    }

    /// Page `client`'s tools: its last list while its revision is the same, else read anew with
    /// a `tools` step (which takes no snapshot); the last list when the page does not answer in
    /// time.
    pub(crate) async fn page_tool_listing(&self, client: &str) -> Result<Arc<Listing>, RunError> {
        let (revision, listed) = self.inner.page_tools.cached(client).unwrap_or((0, None));
        if let Some(listed) = listed.as_ref().filter(|l| l.revision >= revision) {
            return Ok(listed.clone());
        }
        let batch = Batch {
            steps: vec![json!({"command": "tools"})],
            client: Some(client.to_owned()),
            timeout: LIST_TIMEOUT,
        };
        let fetched = self.run_with_hint(batch, None).await.and_then(|result| {
            let step = result
                .steps
                .first()
                .ok_or_else(|| RunError::BadRequest("no answer".into()))?;
            if let Some(error) = &step.error {
                return Err(RunError::BadRequest(error.clone()));
            }
            parse_listing(step.result.as_ref().unwrap_or(&Value::Null)).map_err(RunError::BadRequest)
        });
        match (fetched, listed) {
            (Ok(listing), _) => {
                let listing = Arc::new(listing);
                self.inner.page_tools.store(client, listing.clone());
                Ok(listing)
            }
            (Err(_), Some(old)) => Ok(old),
            (Err(e), None) => Err(e),
        }
    }

    /// Every live page's tools as MCP names them, pages in client-id order; a page that cannot
    /// be read now is left out.
    pub(crate) async fn exposed_page_tools(&self) -> Vec<Exposed> {
        let mut listed = Vec::new();
        for (client, _, page) in self.pages_with_tools() {
            if let Ok(listing) = self.page_tool_listing(&client).await {
                listed.push((client, page, listing));
            }
        }
        // A name one page alone offers is plain; where pages share it, each says its page.
        let mut offered: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (_, _, listing) in &listed {
            for tool in &listing.tools {
                *offered.entry(tool.name.as_str()).or_default() += 1;
            }
        }
        let mut out: Vec<Exposed> = Vec::new();
        for (client, page, listing) in &listed {
            for tool in &listing.tools {
                let shared = offered.get(tool.name.as_str()).is_some_and(|&n| n > 1);
                let base = mcp_name(shared.then_some(client.as_str()), &tool.name);
                let mut name = base.clone();
                let mut n = 2;
                while out.iter().any(|e| e.mcp_name == name) {
                    let suffix = format!("_{n}");
                    name = format!("{}{suffix}", &base[..base.len().min(MCP_NAME_MAX - suffix.len())]);
                    n += 1;
                }
                out.push(Exposed {
                    mcp_name: name,
                    client: client.clone(),
                    page: page.clone(),
                    tool: tool.clone(),
                });
            }
        }
        out
    }
}
