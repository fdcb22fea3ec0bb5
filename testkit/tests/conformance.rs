//! The HTTP conformance suite (`browser_agent_testkit::conformance`) against the tower adapter on
//! axum and the actix middleware, each on a real loopback server of its test app.

mod axum_adapter {
    browser_agent_testkit::conformance_suite!(browser_agent_testkit::axum_app::spawn);
}

mod actix_adapter {
    browser_agent_testkit::conformance_suite!(browser_agent_testkit::actix_app::spawn);
}
