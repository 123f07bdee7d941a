import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// transferd's HTTP API as the command line uses it: one `HTTPClient` with a short connect timeout, the API key as
/// a bearer token, every answer read whole (its bytes kept, for `--json`) or streamed, and every failure turned
/// into a `CommandFailure` that says in one line what went wrong.
struct APIConnection: Sendable {
    let baseURL: String
    let apiKey: String
    let http: HTTPClient

    /// An answer read whole: its status, headers and body exactly as the API sent them.
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: ByteBuffer

        /// The body decoded as `T`.
        func decode<T: Decodable>(_ type: T.Type = T.self) throws(CommandFailure) -> T {
            do {
                return try APIJSON.decoder.decode(type, from: body)
            } catch {
                throw .unexpectedAnswer("the answer was not the JSON expected (\(error))")
            }
        }

        /// The body's text, as the API sent it.
        var text: String { String(buffer: body) }
    }

    /// Runs `body` with a client for `baseURL`, and shuts the client down after.
    static func with<T: Sendable>(
        baseURL: String,
        apiKey: String,
        _ body: (APIConnection) async throws -> T
    ) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(60))
        configuration.decompression = .disabled
        // A refused connection is said at once rather than tried again until the connect timeout: a person waits
        // for the answer, and the commands that must outlast a restart (following, saving, staging) try again
        // themselves.
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let client = APIConnection(baseURL: baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL, apiKey: apiKey, http: http)
        do {
            let result = try await body(client)
            try? await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// A request to `path` with the API key, and a JSON body when one is given.
    func request(_ method: HTTPMethod, _ path: String, json: (some Encodable)? = String?.none) throws(CommandFailure) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        request.headers.add(name: "User-Agent", value: "transferctl")
        if let json {
            do {
                request.body = .bytes(ByteBuffer(data: try APIJSON.encoder.encode(json)))
            } catch {
                throw .unexpectedAnswer("the request could not be written as JSON (\(error))")
            }
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        return request
    }

    /// Sends `request` and reads the whole answer; an answer other than 2xx is the problem it carries.
    func send(_ request: HTTPClientRequest, timeout: TimeAmount = .seconds(60)) async throws(CommandFailure) -> Reply {
        let reply: Reply
        do {
            let response = try await http.execute(request, timeout: timeout)
            reply = Reply(
                status: Int(response.status.code),
                headers: response.headers,
                body: try await response.body.collect(upTo: 64 << 20)
            )
        } catch {
            throw CommandFailure(reaching: baseURL, error)
        }
        guard (200..<300).contains(reply.status) else { throw CommandFailure(problemIn: reply) }
        return reply
    }

    /// `GET path`, read whole.
    func get(_ path: String) async throws(CommandFailure) -> Reply {
        try await send(try request(.GET, path))
    }

    /// `method path` with a JSON body (or none), read whole.
    func send(_ method: HTTPMethod, _ path: String, json: (some Encodable)? = String?.none) async throws(CommandFailure) -> Reply {
        try await send(try request(method, path, json: json))
    }

    /// Sends `request` and returns the answer's head and streaming body, once it is 2xx.
    func open(_ request: HTTPClientRequest, timeout: TimeAmount = .hours(24 * 365)) async throws(CommandFailure) -> HTTPClientResponse {
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            throw CommandFailure(reaching: baseURL, error)
        }
        guard (200..<300).contains(response.status.code) else {
            let body = (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer()
            throw CommandFailure(problemIn: Reply(status: Int(response.status.code), headers: response.headers, body: body))
        }
        return response
    }
}
