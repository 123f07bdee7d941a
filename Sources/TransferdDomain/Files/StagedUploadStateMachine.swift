/// The lifecycle of a staged file's upload (tus): one request at a time appends at the offset the upload stands at,
/// keeping what arrived, until the file is full; a full file is complete and takes no more bytes. It decides; the
/// service carries out its actions (writes the bytes, records the offset where the upload still stands where the
/// append began, which fences out an append of another instance).
package struct StagedUploadStateMachine: Sendable {
    private enum State: Sendable, Equatable {
        /// Waiting for an append at `offset`.
        case receiving(offset: Int64)
        /// A request appends its bytes from `offset`.
        case appending(from: Int64)
        /// Full: it takes no more bytes.
        case complete
    }

    /// What the service does with a request to append.
    package enum Admission: Sendable, Equatable {
        /// Refuses the request; nothing changes.
        case refuse(DomainError)
        /// Writes the body's bytes from `from`, refusing any past `upTo` (the upload's length).
        case write(from: Int64, upTo: Int64)
    }

    /// What the service records once an append ended.
    package enum Action: Sendable, Equatable {
        /// Records that the upload stands at `offset`, where it stood at `from`.
        case record(offset: Int64, from: Int64)
        /// Records the upload full, where it stood at `from`, and completes it.
        case complete(from: Int64)
        /// Nothing to record: the append kept no byte.
        case none
    }

    private var state: State
    /// The upload's length (`Upload-Length`).
    package let length: Int64
    private let publicID: String

    /// The machine of `file` as stored.
    package init(_ file: StagedFile) {
        state = file.isComplete ? .complete : .receiving(offset: file.uploadOffset)
        length = file.uploadLength
        publicID = file.publicId
    }

    /// A request asks to append at `offset` (its `Upload-Offset`).
    package mutating func appendRequested(at offset: Int64) -> Admission {
        switch state {
        case .complete:
            return .refuse(.conflict("File `\(publicID)` is complete; it takes no more bytes."))
        case .appending:
            return .refuse(.conflict("Another request is appending to file `\(publicID)`; try again when it has ended."))
        case .receiving(let current) where current != offset:
            return .refuse(.conflict("Upload-Offset is \(offset) but the upload stands at \(current)."))
        case .receiving(let current):
            state = .appending(from: current)
            return .write(from: current, upTo: length)
        }
    }

    /// The append ended with the file's bytes kept through `end`: all the body's, or, when it broke off, those it
    /// may keep (none past a body whose checksum did not vouch for it).
    package mutating func appendEnded(keptThrough end: Int64) -> Action {
        guard case .appending(let from) = state else { return .none }
        switch end {
        case ...from:
            state = .receiving(offset: from)
            return .none
        case length...:
            state = .complete
            return .complete(from: from)
        default:
            state = .receiving(offset: end)
            return .record(offset: end, from: from)
        }
    }
}
