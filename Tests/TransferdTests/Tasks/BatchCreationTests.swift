import Foundation
import Testing
import TransferdTestOrigins

@testable import transferd

/// `POST …/tasks` with `{"tasks": [ … ]}`: one transaction, all or nothing, a bad item named by its index.
@Suite struct BatchCreationTests {
    struct BatchView: Decodable {
        var tasks: [TaskView]
    }

    private func batch(
        _ api: APIClient,
        _ session: String,
        _ items: [String],
        headers: [(String, String)] = []
    ) async throws
        -> APIClient.Reply
    {
        try await api.send(
            .POST,
            "/v1/sessions/\(session)/tasks",
            json: #"{"tasks": [\#(items.joined(separator: ", "))]}"#,
            headers: headers
        )
    }

    @Test func aBatchCreatesEveryTaskInOrderAndTheyRun() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // setup
                try await api.createSession("batch")

                // act
                let reply = try await batch(
                    api,
                    "batch",
                    [
                        #"{"kind": "download", "url": "\#(origin.url("/files/1000"))", "taskDescription": "first"}"#,
                        #"{"kind": "download", "url": "http://127.0.0.1:9/later", "start": false}"#,
                        #"{"kind": "download", "url": "\#(origin.url("/files/3000"))", "taskDescription": "third"}"#,
                    ]
                )

                // verify
                #expect(reply.status == 201, "\(reply.text)")
                let created = try reply.decode(BatchView.self).tasks
                #expect(created.map(\.taskIdentifier) == [1, 2, 3])
                #expect(created.map(\.state) == ["running", "suspended", "running"])
                #expect(try await api.waitForCompletion("batch", 1).file?.size == 1000)
                #expect(try await api.waitForCompletion("batch", 3).file?.size == 3000)
                let created3 = try await api.allEvents("batch").filter { $0.type == "task.created" }.map(\.taskIdentifier)
                #expect(created3 == [1, 2, 3])
            }
        }
    }

    @Test(arguments: [
        (#"{"kind": "download", "url": "ftp://example.com/x"}"#, "`tasks[2].url` must use the http or https scheme, not `ftp`."),
        (#"{"kind": "download", "url": "http://example.com/", "priority": "high"}"#, "`tasks[2].priority` must be a number."),
        (
            #"{"kind": "upload", "url": "http://127.0.0.1:9/", "from": {"file": "missing"}}"#,
            "`tasks[2].from.file` does not name a file (`missing`)."
        ),
        (#"{"url": "http://example.com/"}"#, "`tasks[2]`: `kind` is required."),
    ])
    func aBadItemRefusesTheWholeBatchAndNamesItsIndex(item: String, detail: String) async throws {
        try await TestService.with { api in
            try await api.createSession("all-or-nothing")
            let good = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#

            let reply = try await batch(api, "all-or-nothing", [good, good, item])

            #expect(reply.status == 422, "\(reply.text)")
            #expect(reply.problem?.detail == detail)
            #expect(try await api.tasks("all-or-nothing").isEmpty, "nothing of the batch was created")
            #expect(try await api.events("all-or-nothing").items.isEmpty)
            #expect(try await api.createTask("all-or-nothing", url: "http://127.0.0.1:9/", extra: #", "start": false"#).taskIdentifier == 1)
        }
    }

    /// A batch of one is still a batch: a refusal from inside the transaction names its item too.
    @Test func aBatchOfOneNamesItsItem() async throws {
        try await TestService.with { api in
            try await api.createSession("one")
            let reply = try await batch(api, "one", [#"{"kind": "download", "url": "http://127.0.0.1:9/", "backgroundTask": "gone"}"#])
            #expect(reply.status == 422, "\(reply.text)")
            #expect(reply.problem?.detail == "`tasks[0]`: Background task `gone` is not an active background task of this session.")
        }
    }

    @Test(arguments: [0, 1001])
    func aBatchHoldsOneToAThousandTasks(count: Int) async throws {
        try await TestService.with { api in
            try await api.createSession("size")
            let item = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#
            let reply = try await batch(api, "size", Array(repeating: item, count: count))
            #expect(reply.status == 400)
            #expect(reply.problem?.detail == "`tasks` must hold 1 to 1000 tasks.")
        }
    }

    @Test func aThousandTasksInOneRequest() async throws {
        try await TestService.with { api in
            try await api.createSession("thousand")
            let items = (1...1000).map { #"{"kind": "download", "url": "http://127.0.0.1:9/\#($0)", "start": false}"# }
            let reply = try await batch(api, "thousand", items)
            #expect(reply.status == 201)
            #expect(try reply.decode(BatchView.self).tasks.map(\.taskIdentifier) == Array(1...1000))
        }
    }

    @Test func aRetriedBatchWithTheSameIdempotencyKeyCreatesNothingNew() async throws {
        try await TestService.with { api in
            try await api.createSession("again")
            let items = [#"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#]
            let first = try await batch(api, "again", items, headers: [("Idempotency-Key", "batch-1")])
            let second = try await batch(api, "again", items, headers: [("Idempotency-Key", "batch-1")])
            #expect(first.status == 201)
            #expect(second.status == 201)
            #expect(second.body == first.body)
            #expect(try await api.tasks("again").count == 1)
        }
    }

    @Test func aBatchThatWouldPassTheSessionsLimitIsRefusedWhole() async throws {
        try await TestService.with(configure: { $0.limits.maximumTasksPerSession = 3 }) { api in
            try await api.createSession("limited")
            let item = #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#
            _ = try await batch(api, "limited", [item, item])
            let reply = try await batch(api, "limited", [item, item])
            #expect(reply.status == 409)
            #expect(try await api.tasks("limited").count == 2)
        }
    }
}
