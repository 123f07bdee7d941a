import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TransferdTestOrigins

/// A real webhook subscriber on 127.0.0.1: records every delivery it gets and answers as the test tells it to.
final class WebhookReceiver: Sendable {
    /// One request as received.
    struct Received: Sendable {
        var messageID: String
        var timestamp: String
        var signature: String
        var type: String
        var session: String
        var sequence: Int
        var taskIdentifier: Int?
        var body: Data
        /// The W3C `traceparent` header, when the delivery carried one.
        var traceparent: String?
        var receivedAt: ContinuousClock.Instant
        /// The status the receiver answered with.
        var status: Int
    }

    /// How to answer one request.
    enum Answer: Sendable {
        case status(Int, headers: HTTPFields = [:])
        /// Wait, then answer 204.
        case delay(Duration)
    }

    private struct State {
        var received: [Received] = []
        /// Answers to give, in order, before the default 204.
        var script: [Answer] = []
        /// Answer every request with this status, these headers and this body while set.
        var refusal: (status: Int, headers: HTTPFields, body: String?)?
        /// A JSON body for the 2xx answer to events of a type.
        var replies: [String: String] = [:]
    }

    private let state = Mutex(State())
    let port: Int

    private init(port: Int) {
        self.port = port
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }
    var received: [Received] { state.withLock { $0.received } }
    /// Deliveries answered 2xx, in arrival order.
    var acknowledged: [Received] { received.filter { (200..<300).contains($0.status) } }

    func script(_ answers: [Answer]) { state.withLock { $0.script = answers } }
    /// Answers every request with `status` (nil: as scripted again), `headers` and `body`.
    func refuse(with status: Int?, headers: HTTPFields = [:], body: String? = nil) {
        state.withLock { $0.refusal = status.map { ($0, headers, body) } }
    }
    /// Answers events of `type` with 200 and `json`, like a subscriber that answers in the same round trip.
    func reply(to type: String, with json: String) { state.withLock { $0.replies[type] = json } }

    private func answer(for request: Request, body: ByteBuffer) async throws -> Response {
        let payload = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] ?? [:]
        let data = payload["data"] as? [String: Any] ?? [:]
        let (next, refusalBody) = state.withLock { state -> (Answer, String?) in
            if let refusal = state.refusal { return (.status(refusal.status, headers: refusal.headers), refusal.body) }
            return (state.script.isEmpty ? .status(204) : state.script.removeFirst(), nil)
        }
        var status = 204
        var headers: HTTPFields = [:]
        switch next {
        case .status(let code, let extra):
            status = code
            headers = extra
        case .delay(let duration):
            try await Task.sleep(for: duration)
        }
        let received = Received(
            messageID: request.headers[HTTPField.Name("webhook-id")!] ?? "",
            timestamp: request.headers[HTTPField.Name("webhook-timestamp")!] ?? "",
            signature: request.headers[HTTPField.Name("webhook-signature")!] ?? "",
            type: payload["type"] as? String ?? "",
            session: data["sessionIdentifier"] as? String ?? "",
            sequence: data["sequence"] as? Int ?? 0,
            taskIdentifier: data["taskIdentifier"] as? Int,
            body: Data(body.readableBytesView),
            traceparent: request.headers[HTTPField.Name("traceparent")!],
            receivedAt: .now,
            status: status
        )
        let reply = state.withLock { state in
            state.received.append(received)
            return (200..<300).contains(status) ? state.replies[received.type] : nil
        }
        guard let reply else {
            return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: refusalBody ?? "")))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: reply)))
    }

    /// Runs a receiver for the duration of `body`; `port` 0 picks a free one, another reuses a known port.
    static func with<T: Sendable>(port: Int = 0, _ body: (WebhookReceiver) async throws -> T) async throws -> T {
        let router = Router()
        let box = Mutex<WebhookReceiver?>(nil)
        router.post("hook") { request, _ in
            let buffer = try await request.body.collect(upTo: 16 << 20)
            return try await box.withLock { $0! }.answer(for: request, body: buffer)
        }
        return try await LoopbackServer.run(
            router,
            port: port,
            make: { port in
                let receiver = WebhookReceiver(port: port)
                box.withLock { $0 = receiver }
                return receiver
            },
            body
        )
    }
}
