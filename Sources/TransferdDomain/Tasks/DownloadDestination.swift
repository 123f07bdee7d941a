/// Where a download's content goes: the data directory (served by `GET …/content`), or an object in one of the
/// tenant's stores.
package enum DownloadDestination: Sendable, Equatable {
    case dataDirectory
    case object(ObjectLocation)

    /// The object, for a download into a bucket.
    package var object: ObjectLocation? {
        guard case .object(let location) = self else { return nil }
        return location
    }

    /// How its content is stored, for its tenant's quota.
    package var storingPath: StoringPath {
        switch self {
        case .dataDirectory: .downloadFile
        case .object: .downloadObject
        }
    }
}
