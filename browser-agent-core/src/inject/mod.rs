//! HTML injection, shared by every adapter: which requests and responses get the client tag
//! ([`gate`]), the tag itself ([`tag`]), and the streaming byte scanner that places it ([`Injector`]).

pub mod gate;
mod head;
mod plan;
mod scanner;
mod stream;
pub mod tag;

pub use head::RequestHead;
pub use plan::{InjectExt, Injection};
pub use scanner::{Injector, Output};
pub use stream::InjectingStream;
