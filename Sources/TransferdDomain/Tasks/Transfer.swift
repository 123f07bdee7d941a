/// What a task transfers, by kind: each case carries the data only its kind has, so code that must treat every kind
/// switches over them, and a new kind is a compile error wherever it matters.
package enum Transfer: Sendable, Equatable {
    case download(DownloadTransfer)
    case upload(UploadTransfer)

    /// The cases by name, as the API and the `kind` column spell them.
    package enum Kind: String, Codable, Sendable, CaseIterable {
        case download
        case upload
    }

    package var kind: Kind {
        switch self {
        case .download: .download
        case .upload: .upload
        }
    }
}

extension Transfer {
    /// A download's own data; nil for another kind.
    package var download: DownloadTransfer? {
        guard case .download(let download) = self else { return nil }
        return download
    }

    /// An upload's own data; nil for another kind.
    package var upload: UploadTransfer? {
        guard case .upload(let upload) = self else { return nil }
        return upload
    }

    /// Changes a download's own data; another kind is left as it is.
    package mutating func updateDownload(_ change: (inout DownloadTransfer) throws -> Void) rethrows {
        guard case .download(var download) = self else { return }
        try change(&download)
        self = .download(download)
    }

    /// Changes an upload's own data; another kind is left as it is.
    package mutating func updateUpload(_ change: (inout UploadTransfer) throws -> Void) rethrows {
        guard case .upload(var upload) = self else { return }
        try change(&upload)
        self = .upload(upload)
    }
}
