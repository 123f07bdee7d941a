import AsyncHTTPClient
import Foundation
import Testing

/// `Tests/Interop/otlp_receiver.py` in a child process: an OTLP/HTTP trace receiver that decodes the spans it is sent
/// with OpenTelemetry's own protobuf package (`opentelemetry-proto`, pip), so that what transferd exports is read by
/// code nobody here wrote.
struct OTLPReceiver: Sendable {
    /// One span as the receiver decoded it; ids in lowercase hex, the parent's empty for a root.
    struct Span: Decodable, Sendable {
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var name: String
        /// `SPAN_KIND_SERVER`, `SPAN_KIND_CLIENT`, `SPAN_KIND_PRODUCER`, `SPAN_KIND_CONSUMER`, `SPAN_KIND_INTERNAL`.
        var kind: String
        /// `STATUS_CODE_UNSET`, `STATUS_CODE_OK` or `STATUS_CODE_ERROR`.
        var status: String
        /// The resource's `service.name`.
        var service: String?
        /// The span's attributes, by key: strings, numbers and booleans as JSON has them.
        var attributes: [String: Attribute]
        var events: [String]

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id", spanID = "span_id", parentSpanID = "parent_span_id", name, kind, status, service, attributes, events
        }
    }

    /// An attribute's value.
    enum Attribute: Decodable, Sendable, Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case other

        /// The string, when it is one.
        var text: String? {
            if case .string(let text) = self { text } else { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let string = try? container.decode(String.self) {
                self = .string(string)
            } else {
                self = .other
            }
        }
    }

    let port: Int
    /// The base URL for `--otlp-endpoint`.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Runs the receiver for the duration of `body`.
    static func with<T: Sendable>(_ body: (OTLPReceiver) async throws -> T) async throws -> T {
        try await InteropScript.serving("otlp_receiver.py", hint: "pip install opentelemetry-proto") { port in
            try await body(OTLPReceiver(port: port))
        }
    }

    /// Every span received so far.
    func spans() async throws -> [Span] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/spans"), timeout: .seconds(10))
        return try JSONDecoder().decode([Span].self, from: Data(try await response.body.collect(upTo: 64 << 20).readableBytesView))
    }

    /// The spans received once `condition` holds of them, within `timeout`.
    func spans(within timeout: Duration = .seconds(30), until condition: @escaping @Sendable ([Span]) -> Bool) async throws -> [Span] {
        try await waitUntil(timeout: timeout) { condition(try await spans()) }
        return try await spans()
    }
}

extension [OTLPReceiver.Span] {
    /// The first span of `name` and `kind`.
    func named(_ name: String, kind: String) -> OTLPReceiver.Span? {
        all(named: name, kind: kind).first
    }

    /// The spans of `name` and `kind`, in the order received.
    func all(named name: String, kind: String) -> [OTLPReceiver.Span] {
        filter { $0.name == name && $0.kind == kind }
    }

    /// The first span whose attribute `key` is `value`.
    func with(_ key: String, _ value: OTLPReceiver.Attribute) -> OTLPReceiver.Span? {
        first { $0.attributes[key] == value }
    }

    /// The first span whose status is `status`.
    func with(status: String) -> OTLPReceiver.Span? {
        first { $0.status == status }
    }
}
