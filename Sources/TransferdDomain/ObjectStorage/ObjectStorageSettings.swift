import Foundation

/// What a client gives of a store (`PUT /v1/storage/{name}`), checked: the endpoint is an `http(s)://host[:port]`
/// URL with nothing else, the region and bucket are spelled as S3 spells them, and the access key is printable.
package struct ObjectStorageSettings: Sendable, Equatable, Codable {
    /// `https://host[:port]` (or `http://`), no path.
    package let endpoint: String
    package let region: String
    package let bucket: String
    package let accessKeyId: String
    package let secretAccessKey: String
    /// Objects addressed as `endpoint/bucket/key` rather than `bucket.endpoint/key`.
    package let pathStyle: Bool

    package init(endpoint: String, region: String, bucket: String, accessKeyId: String, secretAccessKey: String, pathStyle: Bool) throws {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
            url.path.isEmpty || url.path == "/"
        else {
            throw DomainError.invalidField(
                "endpoint",
                requirement: "must be an http:// or https:// URL of a host (and port), without a path"
            )
        }
        guard (1...32).contains(region.utf8.count), region.utf8.allSatisfy({ Self.isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") })
        else {
            throw DomainError.invalidField("region", requirement: "must be 1–32 lower-case letters, digits and `-` (`us-east-1`, `auto`)")
        }
        guard Self.isBucketName(bucket) else {
            throw DomainError.invalidField(
                "bucket",
                requirement: "must be 3–63 lower-case letters, digits, `.` and `-`, starting and ending with a letter or a digit"
            )
        }
        guard (1...128).contains(accessKeyId.utf8.count), accessKeyId.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw DomainError.invalidField("accessKeyId", requirement: "must be 1–128 printable ASCII characters without spaces")
        }
        guard (1...256).contains(secretAccessKey.utf8.count), secretAccessKey.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw DomainError.invalidField("secretAccessKey", requirement: "must be 1–256 printable ASCII characters without spaces")
        }
        self.endpoint = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host.lowercased())\(url.port.map { ":\($0)" } ?? "")"
        (self.region, self.bucket, self.accessKeyId, self.secretAccessKey, self.pathStyle) =
            (region, bucket, accessKeyId, secretAccessKey, pathStyle)
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last, isLowerAlphanumeric(first),
            isLowerAlphanumeric(last)
        else { return false }
        return bytes.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") } && !name.contains("..")
    }
}
