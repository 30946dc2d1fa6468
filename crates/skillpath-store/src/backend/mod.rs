//! The backends: where the store's rows live. Each holds only its SQL, its transactions and
//! the mapping of its rows; what a write or an import decides is in [`crate::writes`] and
//! [`crate::import`], which each backend drives through its [`crate::writes::WriteTransaction`].

#[cfg(feature = "postgres")]
pub mod postgres;
pub mod sqlite;
