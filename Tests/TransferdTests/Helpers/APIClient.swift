import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// A thin client for transferd's API in tests: real HTTP over loopback, JSON decoded into the views below.
struct APIClient: Sendable {
    /// Sends one request (method, path and query, headers, body) and reads its whole answer.
    typealias Exchange = @Sendable (HTTPMethod, String, HTTPHeaders, ByteBuffer?) async throws -> Reply

    let baseURL: String
    /// The API key sent as a bearer token; nil sends none.
    var key: String? = TestService.apiKey
    /// How requests go when not over loopback HTTP to `baseURL` (through the router, in process).
    var routed: Exchange?

    /// One response, fully read.
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            try JSONCoding.decoder.decode(type, from: body)
        }

        var problem: ProblemView? { try? decode() }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func send(
        _ method: HTTPMethod,
        _ path: String,
        json: String? = nil,
        headers: [(String, String)] = [],
        body: String? = nil,
        bytes: ByteBuffer? = nil
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if json != nil { request.headers.add(name: "Content-Type", value: "application/json") }
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let content = (json ?? body).map { ByteBuffer(string: $0) } ?? bytes
        if let routed { return try await routed(method, path, request.headers, content) }
        if let content { request.body = .bytes(content) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 256 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    // MARK: Conveniences

    @discardableResult
    func createSession(_ identifier: String, configuration: String = "{}") async throws -> SessionView {
        let reply = try await send(.PUT, "/v1/sessions/\(identifier)", json: #"{"configuration": \#(configuration)}"#)
        #expect([200, 201].contains(reply.status), "\(reply.text)")
        return try reply.decode()
    }

    func createTask(_ session: String, url: String, kind: String = "download", extra: String = "") async throws -> TaskView {
        let reply = try await send(.POST, "/v1/sessions/\(session)/tasks", json: #"{"kind": "\#(kind)", "url": "\#(url)"\#(extra)}"#)
        #expect(reply.status == 201, "\(reply.text)")
        return try reply.decode()
    }

    func session(_ identifier: String) async throws -> SessionView {
        try await send(.GET, "/v1/sessions/\(identifier)").decode()
    }

    func deliveries(_ session: String, status: String? = nil) async throws -> [DeliveryView] {
        let query = status.map { "&status=\($0)" } ?? ""
        return try await send(.GET, "/v1/sessions/\(session)/deliveries?limit=1000\(query)").decode(DeliveryPage.self).items
    }

    /// Waits until the subscriber has acknowledged every delivery of the session written so far, for as long as
    /// acknowledgements keep coming: it fails when none came for `timeout`. A session's deliveries go one at a time,
    /// and hundreds of them take minutes on a loaded machine; a deadline for them all failed there.
    func waitUntilAllAcknowledged(_ session: String, timeout: Duration = .seconds(60)) async throws {
        try await waitUntil(progressing: timeout) {
            let last = try await deliveries(session).last?.sequence ?? 0
            let state = try await self.session(session)
            return (state.pendingDeliveries == 0 && state.lastAcknowledgedSequence == last, Int64(state.lastAcknowledgedSequence))
        }
    }

    func task(_ session: String, _ taskIdentifier: Int) async throws -> TaskView {
        try await send(.GET, "/v1/sessions/\(session)/tasks/\(taskIdentifier)").decode()
    }

    func events(_ session: String, after: Int = 0, wait: Int = 0) async throws -> EventBatchView {
        try await send(.GET, "/v1/sessions/\(session)/events?after=\(after)&wait=\(wait)&limit=1000").decode()
    }

    /// The session's whole event log, read page by page.
    func allEvents(_ session: String) async throws -> [EventView] {
        var events: [EventView] = []
        while true {
            let batch = try await self.events(session, after: events.last?.sequence ?? 0)
            if batch.items.isEmpty { return events }
            events += batch.items
        }
    }

    /// Stages `size` bytes of the origin's content as a file with a plain `PUT /v1/files/{id}`.
    @discardableResult
    func stageFile(_ id: String, size: Int, contentType: String = "application/x-test") async throws -> StagedFileView {
        let reply = try await send(.PUT, "/v1/files/\(id)", headers: [("Content-Type", contentType)], bytes: OriginContent.buffer(0..<size))
        #expect(reply.status == 201, "\(reply.text)")
        return try reply.decode()
    }

    func tasks(_ session: String) async throws -> [TaskView] {
        try await send(.GET, "/v1/sessions/\(session)/tasks?limit=1000").decode(TaskPage.self).items
    }

    /// Long-polls the event log until an event matches, or fails the test after `timeout`.
    @discardableResult
    func waitForEvent(
        _ session: String,
        timeout: Duration = .seconds(60),
        sourceLocation: SourceLocation = #_sourceLocation,
        where matches: (EventView) -> Bool
    ) async throws -> EventView {
        let deadline = ContinuousClock.now + timeout
        var after = 0
        while ContinuousClock.now < deadline {
            let batch = try await events(session, after: after, wait: 2)
            if let event = batch.items.first(where: matches) { return event }
            after = batch.nextAfter
        }
        Issue.record("no matching event within \(timeout)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Waits for the task's `task.completed` event and returns the task as it is then.
    @discardableResult
    func waitForCompletion(_ session: String, _ taskIdentifier: Int, timeout: Duration = .seconds(60)) async throws -> TaskView {
        try await waitForEvent(session, timeout: timeout) { $0.type == "task.completed" && $0.taskIdentifier == taskIdentifier }
        return try await task(session, taskIdentifier)
    }
}
