//! (being written: issue 8)
