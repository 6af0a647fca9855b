//! PTX front end (placeholder until the PTX front-end work lands).
