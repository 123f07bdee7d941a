import AsyncHTTPClient
import TransferdDomain
import TransferdS3

extension TransferError {
    /// What a store's failure means for the task, named after the store: its 5xx, throttling and unreachability are
    /// transient (`objectStorageUnavailable`, retried as the task's retry policy says, after the client's own
    /// attempts); a refusal (a wrong key, a missing bucket, no right) is not (`objectStorageRefused`), but for the
    /// service's content store, whose refusals are the operator's to mend, not the task's. A failure that is a
    /// transfer error already (the guard refused the endpoint) stays one.
    static func objectStorage(_ error: any Error, storage: String) -> TransferError {
        let name = storage == ObjectLocation.contentStore ? "The content store" : "The storage `\(storage)`"
        switch error {
        case let error as TransferError: return error
        case let error as S3Error:
            let transient = error.isTransient || storage == ObjectLocation.contentStore
            return TransferError(
                code: transient ? .objectStorageUnavailable : .objectStorageRefused,
                message: "\(name) answered \(error.code) (HTTP \(error.status))\(error.message.isEmpty ? "" : ": \(error.message)")",
                statusCode: error.status
            )
        default:
            return TransferError(code: .objectStorageUnavailable, message: "\(name) could not be reached (\(error)).")
        }
    }
}
