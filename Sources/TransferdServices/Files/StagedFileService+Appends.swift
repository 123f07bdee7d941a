import Synchronization
import TransferdDomain

extension StagedFileService {
    /// The uploads of this process's appends, each its machine while a request appends to it.
    package final class Appends: Sendable {
        private let uploads = Mutex<[Int64: StagedUploadStateMachine]>([:])

        /// A request to append at `offset` to `file` as stored: the bytes to write, or the machine's refusal (another
        /// request of this process appends to it, it is complete, or it stands elsewhere).
        func begin(_ file: StagedFile, at offset: Int64) throws(DomainError) -> (from: Int64, upTo: Int64) {
            let admission = uploads.withLock { uploads in
                var upload = uploads[file.rowID] ?? StagedUploadStateMachine(file)
                let admission = upload.appendRequested(at: offset)
                if case .write = admission { uploads[file.rowID] = upload }
                return admission
            }
            switch admission {
            case .write(let from, let length): return (from, length)
            case .refuse(let refusal): throw refusal
            }
        }

        /// The append `begin` let in ended with the file's bytes kept through `end`: what to record. The file takes no
        /// other append of this process until it is released, once that is recorded (or not).
        func end(_ fileID: Int64, keptThrough end: Int64) -> StagedUploadStateMachine.Action {
            uploads.withLock { uploads in
                guard var upload = uploads[fileID] else { return .none }
                return upload.appendEnded(keptThrough: end)
            }
        }

        /// Lets the file take an append again: the next one's machine starts from the file as stored.
        func release(_ fileID: Int64) {
            _ = uploads.withLock { $0.removeValue(forKey: fileID) }
        }
    }
}
