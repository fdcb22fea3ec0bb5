//! In-process tests of the routes through [`BrowserAgent::handle`](crate::BrowserAgent::handle).
