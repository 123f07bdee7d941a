import Foundation
import Hummingbird
import NIOCore
import Synchronization
import TransferdDomain

/// A real HTTP origin on 127.0.0.1, port 0, for transfers to run against. It serves generated files with
/// `Content-Length`, `ETag`, `Accept-Ranges` and single ranges, and faults on demand:
///
/// - `/files/{size}`: the file (Range and If-Range honoured), with faults chosen by query parameters:
///   `name` (requests are counted per name; the ETag carries the name's version, which `change(_:)` bumps),
///   `faults` (how many first requests of the name are faulty, 1 by default), `dropAfter=N` (a faulty response
///   drops the connection after N bytes), `stallAfter=N` (a faulty response stops sending after N bytes),
///   `bytesPerSecond=R` (throttle every response), `tamper` (every byte flipped: the same size and ETag, other
///   content, as a mirror serving something else would), `ignoreRange`, `noValidator`, `noAcceptRanges`, `noLength`
///   (no Content-Length: the body is chunked, its size unannounced), `holdAgain=G` (every request of the name but
///   the first waits for the test to open gate `G` before it is answered), `hold=G` (every request of the name waits
///   for gate `G`).
/// - `/gated/{gate}/{size}`: sends the first 64 KiB, then waits until the test opens `gate`.
/// - `/feed/{name}`: a small document whose bytes change with the name's version (`change(_:)`), with an `ETag` and
///   a `Last-Modified` of the version, honouring `If-None-Match` and `If-Modified-Since` with a `304`; `noValidator`
///   leaves the validators out (and so never answers `304`).
/// - `/status/{code}`: answers with that status.
/// - `/truncated/{size}`: announces `size` bytes, sends half and drops the connection.
/// - `/redirect/{count}/{size}?to=`: redirects (302, with a short body naming the target) `count` times, then to
///   `/files/{size}` (or to `to`).
/// - `/gzip/{size}`: the file gzip-compressed, with `Content-Encoding: gzip`.
/// - `/gzip-zeros/{size}`: `size` zero bytes gzip-compressed, with `Content-Encoding: gzip` (a decompression bomb).
/// - `/basic/{user}/{size}`: the file for `user` and `password(of: user)` as Basic credentials; 401 with a
///   `Basic realm="files"` challenge otherwise.
/// - `/bearer/{user}/{size}`: the file for `password(of: user)` as a Bearer token; 401 with a `Bearer realm="api"`
///   challenge otherwise.
/// - `/flaky/{name}/{failures}/{size}?status=&retryAfter=`: the first `failures` requests for `name` get `status`
///   (503 by default, with `Retry-After` when asked), the next ones the file.
///
/// It records every request and how many were in flight at once, per `Host` and in all.
package final class OriginServer: Sendable {
    package static let chunkSize = 64 * 1024

    private struct State {
        var openGates: Set<String> = []
        var flakyRequests: [String: Int] = [:]
        var fileRequests: [String: Int] = [:]
        var versions: [String: Int] = [:]
        var requests: [String] = []
        var lastHeaders: [String: String] = [:]
        var traceparents: [String?] = []
        var ranges: [String: [String?]] = [:]
        var arrivals: [String: [ContinuousClock.Instant]] = [:]
        var inFlight: [String: Int] = [:]
        var maxInFlight: [String: Int] = [:]
        var totalInFlight = 0
        var maxTotalInFlight = 0
    }

    private let state = Mutex(State())
    package let port: Int

    /// The `Range` header of every `/files` request for `name`, in arrival order (nil when absent).
    package func ranges(_ name: String) -> [String?] { state.withLock { $0.ranges[name, default: []] } }
    /// When each `/files` request for `name` arrived, in order.
    package func arrivals(_ name: String) -> [ContinuousClock.Instant] { state.withLock { $0.arrivals[name, default: []] } }

    /// Changes the resource `name`: its ETag differs from now on.
    package func change(_ name: String) {
        state.withLock { $0.versions[name, default: 1] += 1 }
    }
    private init(port: Int) {
        self.port = port
    }

    package func url(_ path: String, host: String = "127.0.0.1") -> String {
        "http://\(host):\(port)\(path)"
    }

    package func open(gate: String) {
        _ = state.withLock { $0.openGates.insert(gate) }
    }

    /// Request URIs in arrival order.
    package var requests: [String] { state.withLock { $0.requests } }
    /// The `traceparent` of every request, in arrival order (nil when absent).
    package var traceparents: [String?] { state.withLock { $0.traceparents } }
    /// The headers of the last request, names lowercased.
    package var lastHeaders: [String: String] { state.withLock { $0.lastHeaders } }
    package var maxTotalInFlight: Int { state.withLock { $0.maxTotalInFlight } }
    package func maxInFlight(host: String) -> Int { state.withLock { $0.maxInFlight[host, default: 0] } }

    private func isOpen(_ gate: String) -> Bool {
        state.withLock { $0.openGates.contains(gate) }
    }

    private func begin(_ request: Request) -> String {
        let host = request.head.authority ?? "?"
        state.withLock { state in
            state.requests.append(request.uri.description)
            state.lastHeaders = Dictionary(request.headers.map { ($0.name.canonicalName, $0.value) }) { $1 }
            state.traceparents.append(request.headers.first { $0.name.canonicalName == "traceparent" }?.value)
            state.inFlight[host, default: 0] += 1
            state.maxInFlight[host] = max(state.maxInFlight[host, default: 0], state.inFlight[host, default: 0])
            state.totalInFlight += 1
            state.maxTotalInFlight = max(state.maxTotalInFlight, state.totalInFlight)
        }
        return host
    }

    private func end(_ host: String) {
        state.withLock { state in
            state.inFlight[host, default: 0] -= 1
            state.totalInFlight -= 1
        }
    }

    /// Runs an origin for the duration of `body`, on `port` (0 picks a free one).
    package static func with<T: Sendable>(port: Int = 0, _ body: (OriginServer) async throws -> T) async throws -> T {
        let router = Router()
        let box = Mutex<OriginServer?>(nil)
        @Sendable func origin() -> OriginServer { box.withLock { $0! } }
        router.get("files/:size") { request, context in try await origin().file(request, context) }
        router.get("gated/:gate/:size") { request, context in try origin().gated(request, context) }
        router.get("status/:code") { request, context in try origin().status(request, context) }
        router.get("feed/:name") { request, context in origin().feed(request, context) }
        router.get("truncated/:size") { request, context in try origin().truncated(request, context) }
        router.get("redirect/:count/:size") { request, context in try origin().redirect(request, context) }
        router.get("gzip/:size") { _, context in try origin().gzip(OriginContent.gzip(size: origin().size(context))) }
        router.get("gzip-zeros/:size") { _, context in try origin().gzip(OriginContent.gzipZeros(size: origin().size(context))) }
        router.get("basic/:user/:size") { request, context in try origin().authorized(.basic, request, context) }
        router.get("bearer/:user/:size") { request, context in try origin().authorized(.bearer, request, context) }
        router.get("flaky/:name/:failures/:size") { request, context in try await origin().flaky(request, context) }
        return try await LoopbackServer.run(
            router,
            port: port,
            make: { port in
                let server = OriginServer(port: port)
                box.withLock { $0 = server }
                return server
            },
            body
        )
    }

    private func size(_ context: BasicRequestContext) throws -> Int {
        guard let size = context.parameters.get("size", as: Int.self) else { throw HTTPError(.badRequest) }
        return size
    }

    private func file(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let size = try size(context)
        let query = request.uri.queryParameters
        let name = query.get("name") ?? request.uri.path
        let (seen, version) = state.withLock { state in
            state.fileRequests[name, default: 0] += 1
            state.ranges[name, default: []].append(request.headers[.range])
            state.arrivals[name, default: []].append(.now)
            return (state.fileRequests[name, default: 0], state.versions[name, default: 1])
        }
        let faulty = seen <= query.get("faults", as: Int.self) ?? 1
        if let gate = query.get("hold") ?? (seen > 1 ? query.get("holdAgain") : nil) {
            while !isOpen(gate) { try await Task.sleep(for: .milliseconds(5)) }
        }
        let etag = "\"v\(version)-\(size)\""
        var headers: HTTPFields = [.contentType: "application/octet-stream"]
        if query.get("noValidator") == nil { headers[.eTag] = etag }
        if query.get("noAcceptRanges") == nil { headers[.acceptRanges] = "bytes" }
        var range = 0..<size
        var status = HTTPResponse.Status.ok
        if query.get("ignoreRange") == nil, let header = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true,
            header.hasPrefix("bytes="), let first = Int(header.dropFirst(6).prefix { $0 != "-" }), first < size
        {
            let lastText = header.split(separator: "-").dropFirst().first.map(String.init) ?? ""
            let last = min(Int(lastText) ?? (size - 1), size - 1)
            range = first..<(last + 1)
            status = .partialContent
            headers[.contentRange] = "bytes \(first)-\(last)/\(size)"
        }
        let dropAfter = faulty ? query.get("dropAfter", as: Int.self) : nil
        let stallAfter = faulty ? query.get("stallAfter", as: Int.self) : nil
        let bytesPerSecond = query.get("bytesPerSecond", as: Int.self)
        var response = stream(
            range,
            status: status,
            headers: headers,
            request: request,
            chunkSize: bytesPerSecond.map { min(Self.chunkSize, max(1024, $0 / 20)) },
            tampered: query.get("tamper") != nil
        ) {
            sent,
            chunk in
            if let dropAfter, sent >= dropAfter { throw HTTPError(.internalServerError) }
            if let stallAfter, sent >= stallAfter { try await Task.sleep(for: .seconds(3600)) }
            if let bytesPerSecond { try await Task.sleep(for: .milliseconds(chunk * 1000 / bytesPerSecond)) }
        }
        if query.get("noLength") != nil { response.headers[.contentLength] = nil }
        return response
    }

    private func gated(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let size = try size(context)
        let gate = context.parameters.get("gate") ?? ""
        return stream(0..<size, status: .ok, headers: [.contentType: "application/octet-stream"], request: request) { offset, _ in
            if offset >= Self.chunkSize {
                while !self.isOpen(gate) { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }

    private func feed(_ request: Request, _ context: BasicRequestContext) -> Response {
        let name = context.parameters.get("name") ?? ""
        let version = state.withLock { state in
            state.requests.append(request.uri.description)
            state.lastHeaders = Dictionary(request.headers.map { ($0.name.canonicalName, $0.value) }) { $1 }
            return state.versions[name, default: 1]
        }
        let (etag, lastModified) = (
            "\"\(name)-v\(version)\"", HTTPDate.string(from: Date(timeIntervalSince1970: 1_700_000_000 + Double(version) * 3600))
        )
        let validators = request.uri.queryParameters.get("noValidator") == nil
        if validators,
            request.headers[.ifNoneMatch] == etag
                || (request.headers[.ifNoneMatch] == nil && request.headers[.ifModifiedSince] == lastModified)
        {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        var headers: HTTPFields = [.contentType: "text/plain"]
        if validators { (headers[.eTag], headers[.lastModified]) = (etag, lastModified) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "\(name), version \(version)\n")))
    }

    private func status(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let code = context.parameters.get("code", as: Int.self) ?? 500
        return Response(status: .init(code: code), body: .init(byteBuffer: ByteBuffer(string: "status \(code)")))
    }

    private func truncated(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let size = try size(context)
        let host = begin(request)
        return Response(
            status: .ok,
            headers: [.contentLength: String(size)],
            body: ResponseBody { writer in
                defer { self.end(host) }
                try await writer.write(OriginContent.buffer(0..<(size / 2)))
                throw HTTPError(.internalServerError)
            }
        )
    }

    private func redirect(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let size = try size(context)
        let count = context.parameters.get("count", as: Int.self) ?? 0
        let last = request.uri.queryParameters.get("to") ?? "/files/\(size)"
        let location = count > 1 ? "/redirect/\(count - 1)/\(size)" + (request.uri.query.map { "?\($0)" } ?? "") : last
        return Response(
            status: .found,
            headers: [.location: location],
            body: .init(byteBuffer: ByteBuffer(string: "Moved to \(location)\n"))
        )
    }

    private func flaky(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        let failures = context.parameters.get("failures", as: Int.self) ?? 0
        let seen = state.withLock { state in
            state.flakyRequests[name, default: 0] += 1
            return state.flakyRequests[name, default: 0]
        }
        guard seen > failures else {
            state.withLock { state in
                state.requests.append(request.uri.description)
                state.traceparents.append(request.headers.first { $0.name.canonicalName == "traceparent" }?.value)
            }
            var headers: HTTPFields = [:]
            if let retryAfter = request.uri.queryParameters.get("retryAfter") { headers[.retryAfter] = retryAfter }
            let status = request.uri.queryParameters.get("status", as: Int.self) ?? 503
            return Response(status: .init(code: status), headers: headers)
        }
        return try await file(request, context)
    }

    /// The password (or token) `/basic/{user}/…` and `/bearer/{user}/…` take: not in any URL, so that a test can look
    /// for it where it must not be.
    package static func password(of user: String) -> String {
        String(user.reversed()) + "-Pa55"
    }

    /// The authentication schemes the origin asks for.
    package enum Scheme {
        case basic, bearer
    }

    private func authorized(_ scheme: Scheme, _ request: Request, _ context: BasicRequestContext) throws -> Response {
        let user = context.parameters.get("user") ?? ""
        let password = Self.password(of: user)
        let (expected, challenge) =
            switch scheme {
            case .basic: ("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), #"Basic realm="files", charset="UTF-8""#)
            case .bearer: ("Bearer " + password, #"Bearer realm="api""#)
            }
        guard request.headers[.authorization] == expected else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: challenge])
        }
        let size = try size(context)
        return Response(status: .ok, headers: [.contentLength: String(size)], body: .init(byteBuffer: OriginContent.buffer(0..<size)))
    }

    private func gzip(_ compressed: ByteBuffer) -> Response {
        Response(
            status: .ok,
            headers: [.contentEncoding: "gzip", .contentType: "text/plain", .contentLength: String(compressed.readableBytes)],
            body: .init(byteBuffer: compressed)
        )
    }

    /// Streams `range` of the content in chunks; `beforeChunk` (given the bytes sent so far and the next chunk's
    /// size) may hold the stream back or break it.
    private func stream(
        _ range: Range<Int>,
        status: HTTPResponse.Status,
        headers: HTTPFields,
        request: Request,
        chunkSize: Int? = nil,
        tampered: Bool = false,
        beforeChunk: @escaping @Sendable (Int, Int) async throws -> Void = { _, _ in }
    ) -> Response {
        var headers = headers
        headers[.contentLength] = String(range.count)
        let host = begin(request)
        let chunkSize = chunkSize ?? Self.chunkSize
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody { writer in
                defer { self.end(host) }
                var offset = range.lowerBound
                while offset < range.upperBound {
                    let end = min(range.upperBound, offset + chunkSize)
                    try await beforeChunk(offset - range.lowerBound, end - offset)
                    let bytes = OriginContent.bytes(offset..<end)
                    try await writer.write(ByteBuffer(bytes: tampered ? bytes.map { ~$0 } : bytes))
                    offset = end
                }
                // Ends the body: a chunked one (`noLength`) is not over until its last chunk is sent.
                try await writer.finish(nil)
            }
        )
    }
}
