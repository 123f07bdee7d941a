/// A report of an attempt (its response, its reply) that the store could not take: the database is unreachable
/// for a moment. The attempt stops as interrupted rather than failed, and its task continues from its checkpoint
/// once the store takes writes again: an outage of the database fails no transfer.
struct UnrecordedReport: Error {
    let underlying: any Error
}

/// Runs `report`, turning whatever it throws into `UnrecordedReport`.
func recording(_ report: () async throws -> Void) async throws {
    do {
        try await report()
    } catch {
        throw UnrecordedReport(underlying: error)
    }
}
