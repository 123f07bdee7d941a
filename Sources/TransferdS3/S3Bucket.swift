import Foundation

/// A bucket of an S3-compatible store, and how its objects are addressed: `https://bucket.endpoint/key`
/// (virtual-hosted, AWS's default) or `https://endpoint/bucket/key` (path style: MinIO, Ceph, Garage, moto).
public struct S3Bucket: Sendable, Equatable {
    /// `scheme://host[:port]`, no path.
    public let endpoint: URL
    public let region: String
    public let name: String
    public let pathStyle: Bool

    public init(endpoint: URL, region: String, name: String, pathStyle: Bool) {
        (self.endpoint, self.region, self.name, self.pathStyle) = (endpoint, region, name, pathStyle)
    }

    /// The object's URL, unsigned.
    public func objectURL(_ key: String) -> String {
        address(of: key).url
    }

    /// Where a request for `key` (nil: the bucket itself) goes: the `Host` header's value, the encoded path, and the
    /// URL without a query.
    func address(of key: String?) -> (host: String, path: String, url: String) {
        let scheme = endpoint.scheme ?? "https"
        let endpointHost = endpoint.host ?? ""
        let bracketed = endpointHost.contains(":") ? "[\(endpointHost)]" : endpointHost
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let host = pathStyle ? bracketed + port : "\(name).\(bracketed)\(port)"
        let objectPath = key.map { "/" + URIEncoding.path($0) } ?? "/"
        let path = pathStyle ? "/\(URIEncoding.path(name))" + (key == nil ? "" : objectPath) : objectPath
        return (host, path, "\(scheme)://\(host)\(path)")
    }
}
