//! Property laws of the broadcasting rules.
