//! Worked examples of the specs in `shared/spec/`, as table tests.
