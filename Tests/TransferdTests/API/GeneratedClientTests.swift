import Foundation
import OpenAPIRuntime
import Testing
import TransferdClient
import TransferdTestOrigins

/// TransferdClient, generated from openapi.yaml, against the real service: a download from start to content, and a
/// problem, each decoded into the spec's types (a response the spec does not describe would fail to decode).
@Suite struct GeneratedClientTests {
    @Test func aDownloadGoesFromCreationToContentThroughTheGeneratedClient() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let client = Client(serverURL: try #require(URL(string: api.baseURL)), apiKey: TestService.apiKey)
                let session = try await client.createOrReconnectSession(path: .init(identifier: "generated"), body: .json(.init()))
                #expect(try session.created.body.json.identifier == "generated")

                let request = Components.Schemas.CreateTaskRequest(kind: .download, url: origin.url("/files/5000"))
                let created = try await client.createTask(path: .init(identifier: "generated"), body: .json(.CreateTaskRequest(request)))
                guard case .Task(let task) = try created.created.body.json else { throw ClientTestFailure.notATask }

                let completion = try await waitForCompletion(of: task.taskIdentifier, in: "generated", client)
                #expect(completion.data.error == nil)
                let finished = try await client.getTask(path: .init(identifier: "generated", taskIdentifier: task.taskIdentifier)).ok.body
                    .json
                #expect(finished.state == .completed)
                #expect(finished.file?.size == 5000)
                #expect(finished.file?.sha256 == OriginContent.sha256(size: 5000))

                let content = try await client.getTaskContent(path: .init(identifier: "generated", taskIdentifier: task.taskIdentifier))
                let bytes = try await Data(collecting: try content.ok.body.any, upTo: 1 << 20)
                #expect(bytes == Data(OriginContent.bytes(0..<5000)))
            }
        }
    }

    @Test func aProblemIsTheSpecsProblem() async throws {
        try await TestService.with { api in
            let client = Client(serverURL: try #require(URL(string: api.baseURL)), apiKey: TestService.apiKey)
            guard case .notFound(let missing) = try await client.getSession(path: .init(identifier: "nowhere")) else {
                throw ClientTestFailure.unexpectedAnswer
            }
            let problem = try missing.body.applicationProblemJson
            #expect(problem.status == 404)
            #expect(problem.detail.contains("nowhere"))

            let anonymous = Client(serverURL: try #require(URL(string: api.baseURL)), apiKey: nil)
            guard case .unauthorized = try await anonymous.getSession(path: .init(identifier: "generated")) else {
                throw ClientTestFailure.unexpectedAnswer
            }
        }
    }

    /// Long-polls the session's events until the task's `task.completed`.
    private func waitForCompletion(of task: Int, in session: String, _ client: Client) async throws -> Components.Schemas.Event {
        let deadline = ContinuousClock.now + .seconds(60)
        var after = 0
        while ContinuousClock.now < deadline {
            let batch = try await client.listEvents(
                path: .init(identifier: session),
                query: .init(after: after, wait: 2),
                headers: .init(accept: [.init(contentType: .json)])
            ).ok.body.json
            if let event = batch.items.first(where: { $0._type == .task_completed && $0.taskIdentifier == task }) { return event }
            after = batch.nextAfter
        }
        throw ClientTestFailure.noCompletion
    }

    private enum ClientTestFailure: Error {
        case notATask, unexpectedAnswer, noCompletion
    }
}
