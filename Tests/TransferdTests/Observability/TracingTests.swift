import Foundation
import Testing
import TransferdTestOrigins

/// One transfer followed through every system it touches, as an operator's trace viewer shows it: transferd in a
/// process of its own exports its spans over OTLP/HTTP to a receiver that decodes them with OpenTelemetry's own
/// protobuf package, and the origin and the subscriber see the trace in the `traceparent` they are sent.
@Suite struct TracingTests {
    /// The client's trace: its `traceparent` names this trace and a span of the client's.
    static let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let clientSpan = "00f067aa0ba902b7"

    /// Spans are exported in batches every 100 ms, not every 5 s: the test waits for them.
    static let exportSoon = ["OTEL_BSP_SCHEDULE_DELAY": "100"]

    @Test func aDownloadWithOneRetryAndItsWebhookAreOneTrace() async throws {
        try await OTLPReceiver.with { otlp in
            try await WebhookReceiver.with { subscriber in
                try await OriginServer.with { origin in
                    let service = try await ServiceProcess.start(
                        dataDirectory: DataDirectories.temporary(),
                        arguments: ["--otlp-endpoint", otlp.endpoint, "--retry-initial-delay", "0.1", "--retry-maximum-delay", "0.2"],
                        environment: Self.exportSoon
                    )
                    defer { service.stopIfRunning() }
                    try await service.api.createSession(
                        "traced",
                        configuration: #"{"webhook": {"url": "\#(subscriber.url)", "events": ["task.completed"]}}"#
                    )

                    // act: a download whose first request gets a 503, created under the client's trace
                    let body = #"{"kind": "download", "url": "\#(origin.url("/flaky/traced/1/20000"))"}"#
                    _ = try await service.api.send(
                        .POST,
                        "/v1/sessions/traced/tasks",
                        json: body,
                        headers: [("traceparent", "00-\(Self.clientTrace)-\(Self.clientSpan)-01")]
                    )
                    try await service.api.waitUntilAllAcknowledged("traced")
                    // The delivery's span ends last, after its request's: the two may be exported in different batches.
                    let received = try await otlp.spans { spans in spans.contains { $0.name == "send" } }
                    // (The requests of the test's own, to create the session and to wait, are traces of their own.)
                    let spans = received.filter { $0.traceID == Self.clientTrace }
                    // Looked up outside `#expect` and `#require`: closures written inside their expansions were mixed
                    // up with those outside by this compiler (a `filter` ran another closure's body).
                    let server = spans.named("/v1/sessions/{identifier}/tasks", kind: "SPAN_KIND_SERVER")
                    let create = spans.named("create", kind: "SPAN_KIND_PRODUCER")
                    let attempts = spans.all(named: "process", kind: "SPAN_KIND_CONSUMER")
                    let failed = attempts.with("transferd.attempt", .number(1))
                    let succeeded = attempts.with("transferd.attempt", .number(2))
                    let gets = spans.all(named: "GET", kind: "SPAN_KIND_CLIENT")
                    let send = spans.named("send", kind: "SPAN_KIND_PRODUCER")
                    let post = spans.named("POST", kind: "SPAN_KIND_CLIENT")
                    let delivered = subscriber.received.filter { $0.type == "task.completed" }

                    // verify: transferd's spans, the server's a child of the client's, the creation of the server's
                    #expect(Set(received.map(\.service)) == ["transferd"])
                    #expect(server?.parentSpanID == Self.clientSpan)
                    #expect(create?.parentSpanID == server?.spanID)
                    #expect(create?.attributes["messaging.destination.name"] == .string("traced"))
                    // two attempts, each a child of the creation with its request to the origin inside
                    #expect(attempts.count == 2 && Set(attempts.map(\.parentSpanID)) == [create?.spanID ?? "-"])
                    #expect(failed?.status == "STATUS_CODE_ERROR" && failed?.events.contains("retry") == true)
                    #expect(failed?.attributes["error.type"] == .string("badServerResponse"))
                    #expect(succeeded?.status == "STATUS_CODE_OK" && succeeded?.events.contains("first byte") == true)
                    #expect(Set(gets.map(\.parentSpanID)) == Set(attempts.map(\.spanID)))
                    // the origin was sent each request's own span, in the same trace
                    #expect(Set(origin.traceparents.compactMap { $0 }) == Set(gets.map { "00-\(Self.clientTrace)-\($0.spanID)-01" }))
                    // the delivery of task.completed: a send span of the attempt that completed it, and its POST, whose
                    // span the subscriber was sent
                    #expect(send?.parentSpanID == succeeded?.spanID && send?.status == "STATUS_CODE_OK")
                    #expect(send?.attributes["transferd.event.type"] == .string("task.completed"))
                    #expect(post?.parentSpanID == send?.spanID)
                    #expect(delivered.map(\.traceparent) == ["00-\(Self.clientTrace)-\(post?.spanID ?? "-")-01"])
                    try await service.terminate()
                }
            }
        }
    }

    @Test func aDownloadIntoABucketAndABackgroundFetchAreTraced() async throws {
        let server = try await S3TestServer.shared()
        let bucket = try await server.makeBucket()
        try await OTLPReceiver.with { otlp in
            try await OriginServer.with { origin in
                let service = try await ServiceProcess.start(
                    dataDirectory: DataDirectories.temporary(),
                    arguments: ["--otlp-endpoint", otlp.endpoint],
                    environment: Self.exportSoon
                )
                defer { service.stopIfRunning() }
                _ = try await service.api.send(.PUT, "/v1/storage/archive", json: ObjectDownloadTests.storage(server, bucket: bucket))
                try await service.api.createSession("traced")

                // act: a download into the bucket, then a schedule whose first run is due at once
                _ = try await service.api.createTask(
                    "traced",
                    url: origin.url("/files/1000"),
                    extra: ObjectDownloadTests.destination("traced.bin")
                )
                _ = try await service.api.waitForCompletion("traced", 1)
                _ = try await BackgroundFetchTests.schedule(service.api, "traced", url: origin.url("/feed/traced"))
                _ = try await BackgroundFetchTests.performed(service.api, "traced", count: 1)
                let spans = try await otlp.spans { spans in spans.filter { $0.name == "process" }.count >= 2 }
                let attempts = spans.all(named: "process", kind: "SPAN_KIND_CONSUMER")
                let download = attempts.with("transferd.task.id", .number(1))
                let run = attempts.with("transferd.task.id", .number(2))
                let fetch = spans.named("fetch", kind: "SPAN_KIND_INTERNAL")
                let requests = spans.filter { $0.kind == "SPAN_KIND_CLIENT" && $0.parentSpanID == download?.spanID }
                let toBucket = requests.filter { $0.attributes["url.full"]?.text?.contains(bucket) == true }
                let otherTraces = toBucket.filter { $0.traceID != download?.traceID }

                // verify: the download's requests to the bucket are client spans of its attempt; the fetch run's
                // attempt continues the run's span
                #expect(!toBucket.isEmpty, "requests of the attempt: \(requests.map(\.name))")
                #expect(otherTraces.isEmpty)
                #expect(run?.parentSpanID == fetch?.spanID && run?.traceID == fetch?.traceID)
                try await service.terminate()
            }
        }
    }

    @Test func aTasksTraceOutlivesKillNine() async throws {
        try await OTLPReceiver.with { otlp in
            try await OriginServer.with { origin in
                let dataDirectory = DataDirectories.temporary()
                let arguments = ["--otlp-endpoint", otlp.endpoint]
                let first = try await ServiceProcess.start(dataDirectory: dataDirectory, arguments: arguments, environment: Self.exportSoon)
                defer { first.stopIfRunning() }
                try await first.api.createSession("survivor")
                _ = try await first.api.createTask("survivor", url: origin.url("/gated/survivor/200000"))
                // The creation is exported, and the attempt is under way (the origin sent its first bytes).
                let created = try await otlp.spans { spans in spans.contains { $0.name == "create" } }
                let create = created.named("create", kind: "SPAN_KIND_PRODUCER")
                try await waitUntil { try await first.api.task("survivor", 1).countOfBytesReceived > 0 }

                // act: the process dies mid-attempt; the next one continues the task
                try await first.kill()
                let second = try await ServiceProcess.start(
                    dataDirectory: dataDirectory,
                    arguments: arguments,
                    environment: Self.exportSoon
                )
                defer { second.stopIfRunning() }
                origin.open(gate: "survivor")
                try await waitUntil(timeout: .seconds(60)) { try await second.api.task("survivor", 1).state == "completed" }
                let spans = try await otlp.spans { spans in spans.contains { $0.name == "process" && $0.status == "STATUS_CODE_OK" } }
                let resumed = spans.all(named: "process", kind: "SPAN_KIND_CONSUMER").with(status: "STATUS_CODE_OK")

                // verify: the attempt after the restart continues the task's trace, as a child of its creation
                #expect(resumed?.traceID == create?.traceID)
                #expect(resumed?.parentSpanID == create?.spanID)
                #expect(origin.traceparents.last??.contains(create?.traceID ?? "-") == true)
                try await second.terminate()
            }
        }
    }
}

/// Log lines written under a span carry its ids, and those of a transfer its task and session.
@Suite struct TraceLogCorrelationTests {
    @Test func jsonLogLinesCarryTheirSpanAndTheirTask() async throws {
        try await OTLPReceiver.with { otlp in
            try await OriginServer.with { origin in
                let service = try await ServiceProcess.start(
                    dataDirectory: DataDirectories.temporary(),
                    log: ("json", "debug"),
                    arguments: ["--otlp-endpoint", otlp.endpoint],
                    environment: TracingTests.exportSoon
                )
                defer { service.stopIfRunning() }
                try await service.api.createSession("logged")
                // A 404: the attempt fails for good, at once.
                _ = try await service.api.createTask("logged", url: origin.url("/status/404"))
                try await waitUntil { try await service.api.task("logged", 1).state == "completed" }
                let spans = try await otlp.spans { spans in spans.contains { $0.name == "process" } }
                try await service.terminate()

                // verify: the request's line carries the server span's ids; the attempt's end, the attempt's and its task
                let lines = service.log.split(separator: "\n").filter { $0.hasPrefix("{") }
                let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
                let request = objects.first { $0["path"] as? String == "/v1/sessions/logged/tasks" }
                let ended = objects.first { $0["message"] as? String == "a transfer attempt ended" }
                let server = spans.named("/v1/sessions/{identifier}/tasks", kind: "SPAN_KIND_SERVER")
                let attempt = spans.named("process", kind: "SPAN_KIND_CONSUMER")
                #expect(request?["trace_id"] as? String == server?.traceID)
                #expect(request?["span_id"] as? String == server?.spanID)
                #expect(ended?["trace_id"] as? String == attempt?.traceID)
                #expect(ended?["span_id"] as? String == attempt?.spanID)
                #expect(ended?["task"] as? String == "1")
                #expect(ended?["session"] as? String == "1")
            }
        }
    }
}
