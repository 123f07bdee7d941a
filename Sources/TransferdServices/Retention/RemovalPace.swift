/// How fast ``HistoryPruner`` removes: the rows of one transaction at most, and the rest after each transaction, as
/// a share of the time it took. The service removes gently (``gentle``), so that the API beside it hardly waits; a
/// simulation of months, which has no API to spare, may remove at full speed.
package struct RemovalPace: Sendable {
    package var batch: Int
    package var restPerWork: Double

    package init(batch: Int, restPerWork: Double) {
        (self.batch, self.restPerWork) = (batch, restPerWork)
    }

    /// Batches of 100, each followed by a rest as long as it took: the removal takes at most half of the writer
    /// (SQLite has one) and of a core, whatever the backlog (issue 64's target: a creation's p99 at most 1.5 times, a
    /// read's at most twice; batches of 500 gave 2.57 times).
    package static let gentle = RemovalPace(batch: 100, restPerWork: 1)
}
