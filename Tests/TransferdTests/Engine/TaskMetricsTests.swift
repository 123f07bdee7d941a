import Foundation
import Testing
import TransferdTestOrigins

/// URLSessionTaskMetrics (`didFinishCollecting`): a completed task, and its `task.completed` event, carry its
/// interval, its redirect count and every request of every attempt, with plausible times and byte counts.
@Suite struct TaskMetricsTests {
    /// A request's metrics as the API shows them.
    struct TransactionView: Decodable, Equatable {
        var attempt: Int
        var url: String
        var method: String
        var statusCode: Int?
        var fetchStartDate: Date
        var domainLookupStartDate: Date?
        var connectStartDate: Date?
        var connectEndDate: Date?
        var requestStartDate: Date?
        var responseStartDate: Date?
        var responseEndDate: Date?
        var countOfRequestBodyBytesSent: Int
        var countOfResponseBodyBytesReceived: Int
        var remoteAddress: String?
        var remotePort: Int?
        var networkProtocolName: String?
        var isReusedConnection: Bool
        var isProxyConnection: Bool
        var redirected: Bool
    }

    struct MetricsView: Decodable, Equatable {
        struct Interval: Decodable, Equatable {
            var start: Date
            var end: Date
            var duration: Double
        }

        var taskInterval: Interval?
        var redirectCount: Int
        var transactionMetrics: [TransactionView]
    }

    struct TaskWithMetrics: Decodable {
        var startedAt: Date?
        var completedAt: Date?
        var metrics: MetricsView?
    }

    struct CompletedEvent: Decodable {
        struct DataView: Decodable {
            var metrics: MetricsView?
        }

        var type: String
        var data: DataView
    }

    private func metrics(_ api: APIClient, _ session: String, _ task: Int) async throws -> (TaskWithMetrics, MetricsView) {
        let shown = try await api.send(.GET, "/v1/sessions/\(session)/tasks/\(task)").decode(TaskWithMetrics.self)
        return (shown, try #require(shown.metrics))
    }

    @Test func aRedirectedDownloadHasTwoRequestsTheSecondOnTheSameConnection() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("measured")
                _ = try await api.createTask("measured", url: origin.url("/redirect/1/5000"))
                try await api.waitForCompletion("measured", 1)

                // act
                let (task, metrics) = try await metrics(api, "measured", 1)

                // verify: the interval, the redirect, and both requests
                let interval = try #require(metrics.taskInterval)
                #expect(interval.start == task.startedAt && interval.end == task.completedAt && interval.duration >= 0)
                #expect(metrics.redirectCount == 1)
                let port = try #require(URLComponents(string: origin.url("/"))?.port)
                let (hop, final) = (metrics.transactionMetrics[0], metrics.transactionMetrics[1])
                #expect(metrics.transactionMetrics.count == 2)
                #expect(hop.url == origin.url("/redirect/1/5000") && hop.statusCode == 302 && hop.redirected)
                #expect(hop.countOfResponseBodyBytesReceived == "Moved to /files/5000\n".utf8.count)
                #expect(final.url == origin.url("/files/5000") && final.statusCode == 200 && !final.redirected)
                #expect(final.countOfResponseBodyBytesReceived == 5000 && final.countOfRequestBodyBytesSent == 0)
                for request in [hop, final] {
                    #expect(request.attempt == 1 && request.method == "GET")
                    #expect(request.remoteAddress == "127.0.0.1" && request.remotePort == port && !request.isProxyConnection)
                    #expect(request.networkProtocolName == "http/1.1")
                    #expect(request.domainLookupStartDate == nil, "an address needs no lookup")
                    let phases = [request.fetchStartDate, request.requestStartDate, request.responseStartDate, request.responseEndDate]
                    #expect(phases.allSatisfy { $0 != nil } && phases.compactMap { $0 } == phases.compactMap { $0 }.sorted(), "\(request)")
                }
                // A new connection for the first request, reused for the second.
                #expect(!hop.isReusedConnection && final.isReusedConnection)
                let connect = [hop.fetchStartDate, hop.connectStartDate, hop.connectEndDate, hop.requestStartDate].compactMap { $0 }
                #expect(connect.count == 4 && connect == connect.sorted(), "\(hop)")
                #expect(final.connectStartDate == nil && final.connectEndDate == nil)

                // the completion event carries the same metrics
                let events = try await api.send(.GET, "/v1/sessions/measured/events").decode(EventsPage.self).items
                let completed = try #require(events.first { $0.type == "task.completed" })
                #expect(completed.data.metrics == metrics)
            }
        }
    }

    struct EventsPage: Decodable {
        var items: [CompletedEvent]
    }

    @Test func eachAttemptsRequestsAreKeptAndAnUploadCountsWhatItSent() async throws {
        try await OriginServer.with { origin in
            try await UploadReceiver.with { receiver in
                try await TestService.with { api in
                    try await api.createSession("kept")
                    _ = try await api.createTask("kept", url: origin.url("/flaky/metrics/1/1000"))
                    try await api.waitForCompletion("kept", 1)
                    try await api.stageFile("data", size: 3000)
                    _ = try await api.createTask("kept", url: receiver.url("raw"), kind: "upload", extra: #", "from": {"file": "data"}"#)
                    try await api.waitForCompletion("kept", 2)

                    // act
                    let (_, download) = try await metrics(api, "kept", 1)
                    let (_, upload) = try await metrics(api, "kept", 2)

                    // verify
                    #expect(download.transactionMetrics.map(\.attempt) == [1, 2])
                    #expect(download.transactionMetrics.map(\.statusCode) == [503, 200])
                    #expect(download.transactionMetrics.last?.countOfResponseBodyBytesReceived == 1000)
                    let sent = try #require(upload.transactionMetrics.first)
                    #expect(upload.transactionMetrics.count == 1 && upload.redirectCount == 0)
                    #expect(sent.method == "PUT" && sent.countOfRequestBodyBytesSent == 3000 && sent.statusCode == 200)
                    #expect(sent.responseEndDate != nil)
                }
            }
        }
    }
}
