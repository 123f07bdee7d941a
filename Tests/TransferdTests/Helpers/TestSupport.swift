// The helpers that need no service (data directories, waiting for a condition, the tests' vault), shared with the
// unit test targets; every file of this target sees them.
@_exported import TransferdTestSupport
