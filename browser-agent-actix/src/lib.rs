//! browser-agent for actix-web.
