/// The service's bounds on every transfer, whatever its task or session asks.
package struct TransferBounds: Sendable {
    /// The most bytes a download stores (`--max-download-size`).
    package var maximumDownloadBytes: Int64
    /// A session's `timeoutIntervalForRequest` is cut to this (`--max-request-timeout`): a transfer that moves no
    /// byte for it gives its worker back.
    package var maximumRequestTimeout: Duration
    /// A transfer that moves fewer bytes a second than this over `stallTimeout` is failed as `timedOut` and retried
    /// later (`--min-transfer-rate`, `--stall-timeout`); nil for no such floor.
    package var minimumRate: MinimumRate?

    /// A throughput floor: `bytesPerSecond`, measured over windows of `window`.
    package struct MinimumRate: Sendable, Equatable {
        package var bytesPerSecond: Int64
        package var window: Duration

        package init(bytesPerSecond: Int64, window: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.window = window
        }
    }

    package init(maximumDownloadBytes: Int64, maximumRequestTimeout: Duration, minimumRate: MinimumRate? = nil) {
        self.maximumDownloadBytes = maximumDownloadBytes
        self.maximumRequestTimeout = maximumRequestTimeout
        self.minimumRate = minimumRate
    }
}
