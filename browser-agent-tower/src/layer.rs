//! [`BrowserAgentLayer`]: the one-line way to mount browser-agent around a service.

use browser_agent_core::BrowserAgent;
use tower_layer::Layer;

use crate::BrowserAgentService;

/// Mounts browser-agent around a service. Cheap to clone; every clone shares one [`BrowserAgent`].
///
/// ```
/// use browser_agent_tower::{BrowserAgent, BrowserAgentLayer};
///
/// // One line, defaults:
/// let layer = BrowserAgentLayer::new();
/// // Or with a configured agent you keep a handle to:
/// let agent = BrowserAgent::builder().max_logs(1000).build();
/// let layer = BrowserAgentLayer::with_agent(agent.clone());
/// assert_eq!(layer.agent().config().max_logs(), 1000);
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct BrowserAgentLayer {
    agent: BrowserAgent,
}

impl BrowserAgentLayer {
    /// A layer over a new agent with every default (enabled in debug builds only).
    pub fn new() -> Self {
        BrowserAgentLayer {
            agent: BrowserAgent::new(),
        }
    }

    /// A layer over `agent` (keep a clone to read logs and pages).
    pub fn with_agent(agent: BrowserAgent) -> Self {
        BrowserAgentLayer { agent }
    }

    /// The shared agent.
    pub fn agent(&self) -> &BrowserAgent {
        &self.agent
    }
}

impl<S> Layer<S> for BrowserAgentLayer {
    type Service = BrowserAgentService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BrowserAgentService::new(inner, self.agent.clone())
    }
}
