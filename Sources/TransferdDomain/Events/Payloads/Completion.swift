/// `task.completed` (didCompleteWithError, with didFinishCollecting's metrics): `error` is always present, null on
/// success; `metrics` once a transfer ran.
package struct Completion: Codable, Sendable, Equatable {
    package var error: TransferError?
    package var metrics: TaskMetrics?

    package init(error: TransferError?, metrics: TaskMetrics?) {
        (self.error, self.metrics) = (error, metrics)
    }

    private enum CodingKeys: String, CodingKey {
        case state, metrics, error
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        error = try container.decodeIfPresent(TransferError.self, forKey: .error)
        metrics = try container.decodeIfPresent(TaskMetrics.self, forKey: .metrics)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(TaskState.completed, forKey: .state)
        try container.encodeIfPresent(metrics, forKey: .metrics)
        try container.encode(error, forKey: .error)
    }
}
