import Foundation

/// One attempt at a transfer, as the task's `attempts` history shows it.
package struct TransferAttempt: Codable, Sendable, Equatable {
    package var endedAt: Date
    /// `succeeded`, or the error code the attempt ended with.
    package var outcome: String
    package var statusCode: Int?
    /// Bytes received (a download) or sent (an upload) during the attempt.
    package var bytes: Int64
}

extension TransferAttempt {
    /// The record of an attempt that ran to an outcome; nil for one cut short (suspend, cancel, shutdown).
    package init?(outcome: TaskStateMachine.TransferOutcome, bytes: Int64, endedAt: Date) {
        switch outcome {
        case .succeeded:
            self.init(endedAt: endedAt, outcome: "succeeded", statusCode: nil, bytes: bytes)
        case .failed(let error):
            self.init(endedAt: endedAt, outcome: error.code.rawValue, statusCode: error.statusCode, bytes: bytes)
        case .challenged(let space, _):
            self.init(endedAt: endedAt, outcome: "authenticationChallenge", statusCode: space.isProxy ? 407 : 401, bytes: bytes)
        case .interrupted:
            return nil
        }
    }
}
