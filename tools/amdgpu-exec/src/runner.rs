//! The fixture runner (filled in below).
