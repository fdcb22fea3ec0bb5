//! Demo apps.
