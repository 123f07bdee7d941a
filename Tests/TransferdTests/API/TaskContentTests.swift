import Foundation
import Testing
import TransferdTestOrigins

/// `GET|HEAD|DELETE …/tasks/{n}/content` on a finished download.
@Suite struct TaskContentTests {
    static let size = 200_000

    /// Runs `body` with a session `content` whose task 1 has downloaded `size` bytes.
    private func withFinishedDownload(_ body: (APIClient) async throws -> Void) async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("content")
                _ = try await api.createTask("content", url: origin.url("/files/\(Self.size)"))
                try await api.waitForCompletion("content", 1)
                try await body(api)
            }
        }
    }

    @Test func theWholeContentComesWithLengthTypeETagAndAcceptRanges() async throws {
        try await withFinishedDownload { api in
            let reply = try await api.send(.GET, "/v1/sessions/content/tasks/1/content")
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "content-length") == String(Self.size))
            #expect(reply.headers.first(name: "content-type") == "application/octet-stream")
            #expect(reply.headers.first(name: "etag") == "\"\(OriginContent.sha256(size: Self.size))\"")
            #expect(reply.headers.first(name: "accept-ranges") == "bytes")
            #expect(reply.body == Data(OriginContent.bytes(0..<Self.size)))
        }
    }

    @Test func aSingleRangeGets206WithThoseBytes() async throws {
        try await withFinishedDownload { api in
            let middle = try await api.send(.GET, "/v1/sessions/content/tasks/1/content", headers: [("Range", "bytes=1000-1999")])
            #expect(middle.status == 206)
            #expect(middle.headers.first(name: "content-range") == "bytes 1000-1999/\(Self.size)")
            #expect(middle.body == Data(OriginContent.bytes(1000..<2000)))

            let suffix = try await api.send(.GET, "/v1/sessions/content/tasks/1/content", headers: [("Range", "bytes=-100")])
            #expect(suffix.status == 206)
            #expect(suffix.body == Data(OriginContent.bytes((Self.size - 100)..<Self.size)))
        }
    }

    @Test func aRangeBeyondTheEndGets416AndAStaleIfRangeGetsEverything() async throws {
        try await withFinishedDownload { api in
            let beyond = try await api.send(.GET, "/v1/sessions/content/tasks/1/content", headers: [("Range", "bytes=\(Self.size)-")])
            #expect(beyond.status == 416)
            #expect(beyond.headers.first(name: "content-range") == "bytes */\(Self.size)")
            #expect(beyond.problem?.status == 416)

            let stale = try await api.send(
                .GET,
                "/v1/sessions/content/tasks/1/content",
                headers: [("Range", "bytes=0-9"), ("If-Range", "\"not-the-etag\"")]
            )
            #expect(stale.status == 200)
            #expect(stale.body.count == Self.size)
        }
    }

    @Test func headAnswersTheHeadersWithoutABody() async throws {
        try await withFinishedDownload { api in
            let reply = try await api.send(.HEAD, "/v1/sessions/content/tasks/1/content")
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "content-length") == String(Self.size))
            #expect(reply.body.isEmpty)
        }
    }

    @Test func deletingTheContentRemovesItButKeepsTheTask() async throws {
        try await withFinishedDownload { api in
            let deleted = try await api.send(.DELETE, "/v1/sessions/content/tasks/1/content")
            #expect(deleted.status == 204)
            let content = try await api.send(.GET, "/v1/sessions/content/tasks/1/content")
            #expect(content.status == 404)
            #expect(content.problem?.detail == "Task 1 has no content: its content was deleted.")
            let task = try await api.task("content", 1)
            #expect(task.state == "completed")
            #expect(try await api.send(.DELETE, "/v1/sessions/content/tasks/1/content").status == 404)
        }
    }

    @Test func aRunningDownloadHasNoContentYet() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("early")
                _ = try await api.createTask("early", url: origin.url("/gated/never/500000"))
                let reply = try await api.send(.GET, "/v1/sessions/early/tasks/1/content")
                #expect(reply.status == 404)
                #expect(reply.problem?.detail == "Task 1 has no content: it is running.")
            }
        }
    }
}
