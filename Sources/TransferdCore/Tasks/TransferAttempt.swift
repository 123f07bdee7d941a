import Foundation

/// One attempt at a transfer, as the task's `attempts` history shows it.
public struct TransferAttempt: Codable, Sendable, Equatable {
    public var endedAt: Date
    /// `succeeded`, or the error code the attempt ended with.
    public var outcome: String
    public var statusCode: Int?
    /// Bytes received (a download) or sent (an upload) during the attempt.
    public var bytes: Int64
}

extension TransferAttempt {
    /// The record of an attempt that ran to an outcome; nil for one cut short (suspend, cancel, shutdown).
    init?(outcome: TaskStateMachine.TransferOutcome, bytes: Int64) {
        switch outcome {
        case .succeeded:
            self.init(endedAt: Date(), outcome: "succeeded", statusCode: nil, bytes: bytes)
        case .failed(let error):
            self.init(endedAt: Date(), outcome: error.code.rawValue, statusCode: error.statusCode, bytes: bytes)
        case .interrupted:
            return nil
        }
    }
}
