import AsyncHTTPClient
import TransferdDomain
import TransferdS3

extension TransferError {
    /// What a store's failure means for the task, named after the store: its 5xx, throttling and unreachability are
    /// transient (`objectStorageUnavailable`, retried as the task's retry policy says, after the client's own
    /// attempts); a refusal (a wrong key, a missing bucket, no right) is not (`objectStorageRefused`). A failure that
    /// is a transfer error already (the guard refused the endpoint) stays one.
    static func objectStorage(_ error: any Error, storage: String) -> TransferError {
        switch error {
        case let error as TransferError: error
        case let error as S3Error:
            TransferError(
                code: error.isTransient ? .objectStorageUnavailable : .objectStorageRefused,
                message:
                    "The storage `\(storage)` answered \(error.code) (HTTP \(error.status))\(error.message.isEmpty ? "" : ": \(error.message)")",
                statusCode: error.status
            )
        default:
            TransferError(code: .objectStorageUnavailable, message: "The storage `\(storage)` could not be reached (\(error)).")
        }
    }
}
