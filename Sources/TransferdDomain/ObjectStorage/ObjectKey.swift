/// An object's key in a bucket, checked: 1–1,024 bytes of UTF-8 without control characters, and no segment that a
/// URL normaliser on the way could rewrite (empty, `.` or `..`), so that the key sent is the key stored.
package struct ObjectKey: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    package let value: String

    package init(_ value: String, field: String = "key") throws(DomainError) {
        let segments = value.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...1024).contains(value.utf8.count), !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else {
            throw DomainError.invalidField(
                field,
                requirement: "must be 1–1,024 bytes without control characters, and without empty, `.` or `..` segments"
            )
        }
        self.value = value
    }

    /// A key this module made from a checked one and digits: valid by construction.
    init(madeFrom value: String) {
        self.value = value
    }

    package var description: String { value }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(text)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// An object of one of a tenant's stores: `{"storage": "name", "key": "path/in/bucket"}`; or of the service's own
/// content store, under a name no tenant's store can have (theirs start with a letter or a digit).
package struct ObjectLocation: Sendable, Equatable, Hashable, Codable {
    /// The name that stands for the service's content store (`--content-store`).
    package static let contentStore = "_content"

    package let storage: String
    package let key: ObjectKey

    /// Whether the object is in the service's content store, which clients neither see nor name.
    package var isContentStore: Bool { storage == Self.contentStore }

    package init(storage: String, key: ObjectKey) {
        (self.storage, self.key) = (storage, key)
    }

    /// `s3://storage/key`.
    package var uri: String { "s3://\(storage)/\(key.value)" }
}
