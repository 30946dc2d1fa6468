//! The studio's own tests: its pages served by a server in the test's process, as
//! `skillpath serve --http` serves them (the same HTTP stack, [`skillpath_server::serve_http`]),
//! and visited over plain HTTP as a browser visits them. The binary's tests keep what only
//! several processes show; the browser tests drive Chromium against the binary.

mod pages;
mod served;
