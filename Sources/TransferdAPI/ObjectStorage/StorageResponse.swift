import Foundation
import Hummingbird
import TransferdDomain

/// A store as the API shows it: everything but the secret, which is never shown again.
struct StorageResponse: ResponseEncodable, Sendable {
    let name: String
    let endpoint: String
    let region: String
    let bucket: String
    let accessKeyId: String
    let pathStyle: Bool
    let createdAt: Date
    let updatedAt: Date

    init(_ storage: ObjectStorage) {
        name = storage.name
        endpoint = storage.settings.endpoint
        region = storage.settings.region
        bucket = storage.settings.bucket
        accessKeyId = storage.settings.accessKeyId
        pathStyle = storage.settings.pathStyle
        createdAt = storage.createdAt
        updatedAt = storage.updatedAt
    }
}

/// `GET /v1/storage`.
struct StorageListResponse: ResponseEncodable, Sendable {
    let storages: [StorageResponse]
}
