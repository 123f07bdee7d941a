import TransferdDomain

/// A store as a client describes it in `PUT /v1/storage/{name}`.
struct StorageRequest: Decodable, Sendable {
    var endpoint: String?
    var region: String?
    var bucket: String?
    var accessKeyId: String?
    var secretAccessKey: String?
    var pathStyle: Bool?

    func validate() throws -> ObjectStorageSettings {
        func required(_ value: String?, _ field: String) throws(DomainError) -> String {
            guard let value else { throw .badRequest("`\(field)` is required.") }
            return value
        }
        return try ObjectStorageSettings(
            endpoint: try required(endpoint, "endpoint"),
            region: region ?? "us-east-1",
            bucket: try required(bucket, "bucket"),
            accessKeyId: try required(accessKeyId, "accessKeyId"),
            secretAccessKey: try required(secretAccessKey, "secretAccessKey"),
            pathStyle: pathStyle ?? false
        )
    }
}
