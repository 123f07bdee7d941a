import Crypto
import Foundation

/// AWS Signature Version 4 for S3 requests, in headers or in a presigned URL's query.
///
/// Hand-written because no S3 library is in the mirror this project builds from (Soto is not): ~100 lines over
/// swift-crypto's SHA-256 and HMAC, checked against AWS's published S3 examples and against botocore's signer
/// (`TransferdS3Tests`). The steps are AWS's: a canonical request, the string to sign, a key derived from the secret
/// by date, region and service, and the HMAC of the one under the other.
public struct SigV4Signer: Sendable {
    /// The payload hash that says the body is not signed (presigned URLs, bodies streamed without a known digest).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The hex SHA-256 of no bytes.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// What is signed of a request.
    public struct Request: Sendable {
        public var method: String
        /// `host[:port]`, as the `Host` header will carry it.
        public var host: String
        /// The path as sent, already percent-encoded (`URIEncoding.path`).
        public var path: String
        /// Query parameters, not encoded.
        public var query: [(name: String, value: String)]
        /// Headers besides `Host`, which is taken from `host`.
        public var headers: [(name: String, value: String)]
        /// The body's hex SHA-256, or `unsignedPayload`.
        public var payloadHash: String

        public init(
            method: String,
            host: String,
            path: String,
            query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)] = [],
            payloadHash: String = SigV4Signer.emptyPayloadHash
        ) {
            (self.method, self.host, self.path, self.query, self.headers, self.payloadHash) =
                (method, host, path, query, headers, payloadHash)
        }
    }

    public let credentials: S3Credentials
    public let region: String
    public let service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        (self.credentials, self.region, self.service) = (credentials, region, service)
    }

    /// The headers to add to `request` at `date`: `x-amz-date`, `x-amz-content-sha256` and `Authorization`.
    public func sign(_ request: Request, at date: Date) -> [(name: String, value: String)] {
        let timestamp = Timestamp(date)
        var signed = request
        signed.headers += [("x-amz-content-sha256", request.payloadHash), ("x-amz-date", timestamp.full)]
        let (canonical, signedHeaders) = canonicalRequest(signed)
        let signature = self.signature(of: canonical, at: timestamp)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope(timestamp)), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return [("x-amz-content-sha256", request.payloadHash), ("x-amz-date", timestamp.full), ("Authorization", authorization)]
    }

    /// The query string (encoded) of a presigned URL for `request`, valid `expires` seconds from `date`: the request's
    /// own parameters, the `X-Amz-*` ones and the signature. Only `Host` is signed, and the payload is not.
    public func presignedQuery(_ request: Request, at date: Date, expires: Int) -> String {
        let timestamp = Timestamp(date)
        var signed = request
        signed.headers = []
        signed.payloadHash = Self.unsignedPayload
        signed.query += [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope(timestamp))"),
            ("X-Amz-Date", timestamp.full), ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", "host"),
        ]
        let (canonical, _) = canonicalRequest(signed)
        return Self.canonicalQuery(signed.query) + "&X-Amz-Signature=" + signature(of: canonical, at: timestamp)
    }

    /// The canonical request and the `SignedHeaders` list, as AWS defines them.
    func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        var headers: [String: [String]] = ["host": [request.host]]
        for (name, value) in request.headers {
            headers[name.lowercased(), default: []].append(Self.trimmed(value))
        }
        let names = headers.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(headers[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [request.method, request.path, Self.canonicalQuery(request.query), canonicalHeaders, signedHeaders, request.payloadHash]
            .joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// Parameters encoded and sorted by name, then value; a parameter without a value is `name=`.
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (URIEncoding.component($0.name), URIEncoding.component($0.value)) }
        let sorted = encoded.sorted { (a, b) in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    private func scope(_ timestamp: Timestamp) -> String {
        "\(timestamp.day)/\(region)/\(service)/aws4_request"
    }

    private func signature(of canonicalRequest: String, at timestamp: Timestamp) -> String {
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp.full, scope(timestamp), Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [timestamp.day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }

    /// A header value with its ends trimmed and inner runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A signing time: `20130524T000000Z` and its day, `20130524`, in UTC.
    private struct Timestamp {
        let full: String
        var day: String { String(full.prefix(8)) }

        init(_ date: Date) {
            var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            gmtime_r(&seconds, &parts)
            full = String(
                format: "%04d%02d%02dT%02d%02d%02dZ",
                parts.tm_year + 1900,
                parts.tm_mon + 1,
                parts.tm_mday,
                parts.tm_hour,
                parts.tm_min,
                parts.tm_sec
            )
        }
    }
}
