/// Every way a tenant comes to keep bytes. Each is counted in the tenant's stored bytes before a byte of it is written:
/// a transfer reserves what it will write (``StorageGrant``), a staged file holds its declared length from its creation.
/// A writer names its path to be given room, refusals are counted by it (`transferd_stored_bytes_refused_total`), and
/// the quota tests walk every case, so that a new way to store cannot pass the quota unseen.
package enum StoringPath: String, CaseIterable, Sendable {
    /// A download's content in the data directory, with its partial file: from one connection or several, decoded
    /// or not, for a task or for a background fetch's version.
    case downloadFile
    /// A download's content as the parts of a multipart upload to a bucket: the service's content store or the
    /// tenant's own.
    case downloadObject
    /// The reply body an upload keeps.
    case replyBody
    /// A file staged with tus or a single `PUT`.
    case stagedFile
}
