import Foundation

/// What a task's transfer cost, as URLSessionTaskMetrics describes it (`didFinishCollecting`): from its first start
/// to its completion, how many redirects it followed, and every request of every attempt.
package struct TaskMetrics: Codable, Sendable, Equatable {
    /// When the task first started and completed.
    package struct Interval: Codable, Sendable, Equatable {
        package var start: Date
        package var end: Date
        package var duration: Double
    }

    /// The most requests kept: the latest ones (a task that retried for a week keeps its last attempts).
    package static let transactionLimit = 100

    package var taskInterval: Interval?
    package var redirectCount: Int
    package var transactionMetrics: [TransactionMetrics]

    package init() {
        redirectCount = 0
        transactionMetrics = []
    }

    /// Adds the requests of an attempt that ended.
    package mutating func append(_ transactions: [TransactionMetrics]) {
        transactionMetrics = Array((transactionMetrics + transactions).suffix(Self.transactionLimit))
        redirectCount += transactions.count(where: \.redirected)
    }

    /// Closes the interval at completion.
    package mutating func complete(startedAt: Date, completedAt: Date) {
        taskInterval = Interval(start: startedAt, end: completedAt, duration: max(0, completedAt.timeIntervalSince(startedAt)))
    }
}
