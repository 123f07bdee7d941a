import Foundation

/// A tenant's S3-compatible store, under the name its tasks use: where it is (endpoint, region, bucket, how objects
/// are addressed) and the access key that opens it. The secret is sealed at rest and never shown again.
package struct ObjectStorage: Sendable, Equatable {
    package let tenantID: Int64
    package let name: String
    package let settings: ObjectStorageSettings
    package let createdAt: Date
    package let updatedAt: Date

    package init(tenantID: Int64, name: String, settings: ObjectStorageSettings, createdAt: Date, updatedAt: Date) {
        (self.tenantID, self.name, self.settings, self.createdAt, self.updatedAt) = (tenantID, name, settings, createdAt, updatedAt)
    }

    /// A store's name: 1–63 lower-case letters, digits, `-` and `_`, starting with a letter or digit; it is a path
    /// segment of the API (`/v1/storage/{name}`) and the host of an `s3://name/key` destination.
    package static func validateName(_ name: String, field: String = "name") throws(DomainError) {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard (1...63).contains(name.utf8.count), allowed, let first = name.utf8.first, first != UInt8(ascii: "-"),
            first != UInt8(ascii: "_")
        else {
            throw DomainError.invalidField(
                field,
                requirement: "must be 1–63 lower-case letters, digits, `-` and `_`, starting with a letter or a digit"
            )
        }
    }
}
