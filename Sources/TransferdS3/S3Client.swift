import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The S3 requests transferd makes, signed with SigV4: objects read whole or by range, written whole or in parts,
/// described, deleted, and shared by presigned URL.
///
/// A request the store refuses throws `S3Error`. Transient failures (the store's 5xx and throttling, a connection
/// that failed) are sent again up to `attempts` times, after `backoff` doubling; every request here may be sent
/// twice without harm, and a completion whose first answer was lost is recognised by the object it left.
public struct S3Client: Sendable {
    public let bucket: S3Bucket
    private let signer: SigV4Signer
    private let transport: any S3Transport
    private let now: @Sendable () -> Date
    /// How long one request may take, its body included.
    public var requestTimeout: Duration = .seconds(300)
    public var attempts = 4
    public var backoff: Duration = .milliseconds(200)

    public init(
        bucket: S3Bucket,
        credentials: S3Credentials,
        transport: any S3Transport,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.bucket = bucket
        self.signer = SigV4Signer(credentials: credentials, region: bucket.region)
        self.transport = transport
        self.now = now
    }

    // MARK: - Objects

    /// The object's description; nil when there is none.
    public func head(_ key: String) async throws -> S3ObjectInfo? {
        do {
            let response = try await send(.HEAD, key: key)
            return Self.info(response.headers, size: response.headers.first(name: "content-length").flatMap { Int64($0) })
        } catch let error as S3Error where error.status == 404 {
            return nil
        }
    }

    /// The object, or the bytes `range` of it (a `Range: bytes=` request), to be read from the answer's body; with
    /// `ifMatch`, only while its ETag is that (a 412 otherwise).
    public func get(_ key: String, range: Range<Int64>? = nil, ifMatch: String? = nil) async throws -> S3ObjectBody {
        var headers = range.map { [("Range", "bytes=\($0.lowerBound)-\($0.upperBound - 1)")] } ?? []
        if let ifMatch { headers.append(("If-Match", ifMatch)) }
        let response = try await send(.GET, key: key, headers: headers)
        let length = response.headers.first(name: "content-length").flatMap { Int64($0) } ?? -1
        // A 206's Content-Range names the whole object's size; a 200's length is the size.
        let size =
            response.headers.first(name: "content-range").flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } } ?? length
        return S3ObjectBody(info: Self.info(response.headers, size: size), length: length, body: response.body)
    }

    /// Writes `bytes` as the object in one request; returns its ETag.
    @discardableResult
    public func put(_ key: String, bytes: ByteBuffer, contentType: String? = nil) async throws -> String {
        let digest = Self.sha256(bytes)
        var headers = [("x-amz-checksum-sha256", Data(digest).base64EncodedString())]
        if let contentType { headers.append(("Content-Type", contentType)) }
        let response = try await send(.PUT, key: key, headers: headers, body: bytes, payloadHash: SigV4Signer.hex(digest))
        return response.headers.first(name: "etag") ?? ""
    }

    /// Deletes the object; an object that is not there is not an error.
    public func delete(_ key: String) async throws {
        do {
            _ = try await send(.DELETE, key: key)
        } catch let error as S3Error where error.status == 404 {
        }
    }

    /// A URL that reads the object without credentials for `expires` seconds; `responseHeaders` are the headers the
    /// store is to answer with (`response-content-disposition`, `response-content-type`), signed into the URL.
    public func presignedURL(_ key: String, expires: Int, responseHeaders: [(name: String, value: String)] = []) -> String {
        let address = bucket.address(of: key)
        let request = SigV4Signer.Request(method: "GET", host: address.host, path: address.path, query: responseHeaders)
        return address.url + "?" + signer.presignedQuery(request, at: now(), expires: expires)
    }

    // MARK: - Multipart uploads

    /// Begins a multipart upload of `key`, with SHA-256 checksums when the store takes them.
    public func createMultipartUpload(_ key: String, contentType: String? = nil) async throws -> S3MultipartUpload {
        var headers: [(String, String)] = contentType.map { [("Content-Type", $0)] } ?? []
        do {
            let reply = try await xml(
                send(.POST, key: key, query: [("uploads", "")], headers: headers + [("x-amz-checksum-algorithm", "SHA256")])
            )
            return S3MultipartUpload(uploadId: try Self.required("UploadId", in: reply), checksums: true)
        } catch let error as S3Error where error.status == 400 || error.status == 501 {
            // A store that does not know the checksum header refuses it (`InvalidArgument`, `NotImplemented`).
            headers = contentType.map { [("Content-Type", $0)] } ?? []
            let reply = try await xml(send(.POST, key: key, query: [("uploads", "")], headers: headers))
            return S3MultipartUpload(uploadId: try Self.required("UploadId", in: reply), checksums: false)
        }
    }

    /// Uploads part `number` (1…10,000) of `upload`; returns what its completion needs.
    public func uploadPart(_ key: String, upload: S3MultipartUpload, number: Int, bytes: ByteBuffer) async throws -> S3Part {
        let digest = Self.sha256(bytes)
        let checksum = upload.checksums ? Data(digest).base64EncodedString() : nil
        let response = try await send(
            .PUT,
            key: key,
            query: [("partNumber", String(number)), ("uploadId", upload.uploadId)],
            headers: checksum.map { [("x-amz-checksum-sha256", $0)] } ?? [],
            body: bytes,
            payloadHash: SigV4Signer.hex(digest)
        )
        guard let etag = response.headers.first(name: "etag") else {
            throw S3Error(status: Int(response.status.code), code: "MissingETag", message: "The store answered a part without an ETag.")
        }
        return S3Part(number: number, etag: etag, checksumSHA256: checksum)
    }

    /// Completes `upload` from `parts` (in order); returns the object's ETag.
    public func completeMultipartUpload(_ key: String, upload: S3MultipartUpload, parts: [S3Part]) async throws -> String {
        let body = ByteBuffer(string: Self.completion(parts))
        do {
            let response = try await send(
                .POST,
                key: key,
                query: [("uploadId", upload.uploadId)],
                headers: [("Content-Type", "application/xml")],
                body: body,
                payloadHash: SigV4Signer.hex(Self.sha256(body))
            )
            // A completion answers 200 at once and may report its failure in the body, after a while.
            let reply = try await xml(response)
            if reply.root == "Error" { throw Self.error(status: 200, reply) }
            return try Self.required("ETag", in: reply)
        } catch let error as S3Error where error.code == "NoSuchUpload" {
            // An earlier attempt completed it and its answer was lost: the object it made is the answer.
            guard let object = try await head(key) else { throw error }
            return object.etag
        }
    }

    /// Abandons `upload` and frees its parts; one that is gone already is not an error.
    public func abortMultipartUpload(_ key: String, upload: S3MultipartUpload) async throws {
        do {
            _ = try await send(.DELETE, key: key, query: [("uploadId", upload.uploadId)])
        } catch let error as S3Error where error.status == 404 {
        }
    }

    // MARK: - Requests

    /// Sends a signed request and returns its 2xx answer (the body unread); throws `S3Error` for any other, after
    /// the attempts a transient failure is given.
    private func send(
        _ method: HTTPMethod,
        key: String?,
        query: [(String, String)] = [],
        headers: [(String, String)] = [],
        body: ByteBuffer? = nil,
        payloadHash: String = SigV4Signer.emptyPayloadHash
    ) async throws -> HTTPClientResponse {
        let request = signedRequest(method, key: key, query: query, headers: headers, body: body, payloadHash: payloadHash)
        var delay = backoff
        for attempt in 1...attempts {
            do {
                let timeout = TimeAmount.nanoseconds(Int64(requestTimeout.components.seconds) * 1_000_000_000)
                let response = try await transport.execute(request, deadline: .now() + timeout)
                guard (200..<300).contains(response.status.code) else {
                    let text = try await response.body.collect(upTo: 64 << 10)
                    throw S3XML(Data(text.readableBytesView)).map { Self.error(status: Int(response.status.code), $0) }
                        ?? S3Error(
                            status: Int(response.status.code),
                            code: Self.code(for: response.status),
                            message: response.status.reasonPhrase
                        )
                }
                return response
            } catch let error where attempt < attempts && Self.isTransient(error) {
                try await Task.sleep(for: delay)
                delay *= 2
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// The request for `key` (nil: the bucket), with `headers` and the signature's.
    func signedRequest(
        _ method: HTTPMethod,
        key: String?,
        query: [(String, String)] = [],
        headers: [(String, String)] = [],
        body: ByteBuffer? = nil,
        payloadHash: String = SigV4Signer.emptyPayloadHash
    ) -> HTTPClientRequest {
        let address = bucket.address(of: key)
        let unsigned = SigV4Signer.Request(
            method: method.rawValue,
            host: address.host,
            path: address.path,
            query: query.map { (name: $0.0, value: $0.1) },
            headers: headers.map { (name: $0.0, value: $0.1) },
            payloadHash: payloadHash
        )
        var request = HTTPClientRequest(url: address.url + (query.isEmpty ? "" : "?" + SigV4Signer.canonicalQuery(unsigned.query)))
        request.method = method
        for (name, value) in headers + signer.sign(unsigned, at: now()).map({ ($0.name, $0.value) }) {
            request.headers.add(name: name, value: value)
        }
        if let body { request.body = .bytes(body) }
        return request
    }

    private func xml(_ response: HTTPClientResponse) async throws -> S3XML {
        let text = try await response.body.collect(upTo: 1 << 20)
        guard let reply = S3XML(Data(text.readableBytesView)) else {
            throw S3Error(status: Int(response.status.code), code: "MalformedReply", message: "The store's reply is not XML.")
        }
        return reply
    }

    private static func required(_ element: String, in reply: S3XML) throws -> String {
        guard let value = reply[element], !value.isEmpty else {
            throw S3Error(status: 200, code: "MalformedReply", message: "The store's reply has no \(element).")
        }
        return value
    }

    private static func error(status: Int, _ reply: S3XML) -> S3Error {
        S3Error(status: status, code: reply["Code"] ?? "HTTP\(status)", message: reply["Message"] ?? "")
    }

    /// The code a body-less refusal (a `HEAD`'s) stands for.
    private static func code(for status: HTTPResponseStatus) -> String {
        switch status {
        case .notFound: "NotFound"
        case .forbidden: "AccessDenied"
        case .serviceUnavailable: "SlowDown"
        default: "HTTP\(status.code)"
        }
    }

    /// The store's transient refusals, and connections that failed or timed out; not a URL the client refused, a
    /// destination the transport's guard refused, or a cancellation.
    private static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as S3Error: error.isTransient
        case let error as HTTPClientError:
            ![.invalidURL, .emptyHost, .emptyScheme, .cancelled, .bodyLengthMismatch].contains(error)
        case is IOError, is ChannelError, is NIOConnectionError: true
        default: false
        }
    }

    private static func info(_ headers: HTTPHeaders, size: Int64?) -> S3ObjectInfo {
        S3ObjectInfo(
            size: size ?? 0,
            etag: headers.first(name: "etag") ?? "",
            contentType: headers.first(name: "content-type"),
            lastModified: headers.first(name: "last-modified")
        )
    }

    private static func sha256(_ bytes: ByteBuffer) -> SHA256.Digest {
        bytes.withUnsafeReadableBytes { SHA256.hash(data: $0) }
    }

    /// The body of a completion: each part's number, ETag and checksum, XML-escaped.
    private static func completion(_ parts: [S3Part]) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let elements = parts.map { part in
            "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(escaped(part.etag))</ETag>"
                + (part.checksumSHA256.map { "<ChecksumSHA256>\($0)</ChecksumSHA256>" } ?? "") + "</Part>"
        }
        return "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(elements.joined())</CompleteMultipartUpload>"
    }
}
