import Foundation

/// How a completed run is judged: a failure is `failed`; a `304 Not Modified` (no content) or content with the
/// latest version's SHA-256 is `noData`; anything else is `newData`, a new version.
package enum FetchOutcome: Sendable, Equatable {
    case newData(FetchVersion)
    /// `duplicate`: the run kept content the latest version has already, to be dropped.
    case noData(duplicate: Bool)
    case failed(String)

    package init(of task: TransferTask, latest: FetchVersion?, at now: Date) {
        if let error = task.error {
            self = .failed(error.message)
            return
        }
        guard let file = task.transfer.download?.file else {
            self = .noData(duplicate: false)
            return
        }
        if file.sha256 == latest?.sha256 {
            self = .noData(duplicate: true)
            return
        }
        let headers = task.response?.headers ?? [:]
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name }?.value }
        self = .newData(
            FetchVersion(
                taskIdentifier: task.taskIdentifier,
                sha256: file.sha256,
                size: file.size,
                etag: header("etag"),
                lastModified: header("last-modified"),
                fetchedAt: now
            )
        )
    }

    package var result: FetchResult {
        switch self {
        case .newData: .newData
        case .noData: .noData
        case .failed: .failed
        }
    }
}
