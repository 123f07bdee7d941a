import Foundation
import Testing
import TransferdTestOrigins

/// Downloads against the real test origin: bytes, digests, redirects and the ways origins fail.
@Suite struct DownloadTests {
    @Test(arguments: [0, 1, 65_535, 65_536, 1_048_577, 5_000_000])
    func theStoredFileHasTheOriginsBytesAndDigest(size: Int) async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("sizes")
                _ = try await api.createTask("sizes", url: origin.url("/files/\(size)"))
                let task = try await api.waitForCompletion("sizes", 1)

                #expect(task.error == nil)
                #expect(task.file?.size == size)
                #expect(task.file?.sha256 == OriginContent.sha256(size: size))
                let content = try await api.send(.GET, "/v1/sessions/sizes/tasks/1/content")
                #expect(content.status == 200)
                #expect(content.body == Data(OriginContent.bytes(0..<size)))
            }
        }
    }

    @Test(arguments: [404, 500])
    func aNonSuccessStatusCompletesWithBadServerResponseAndNoFile(status: Int) async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("status", configuration: #"{"maximumRetries": 0}"#)
                _ = try await api.createTask("status", url: origin.url("/status/\(status)"))
                let task = try await api.waitForCompletion("status", 1)

                #expect(task.error?.code == "badServerResponse")
                #expect(task.error?.statusCode == status)
                #expect(task.response?.statusCode == status)
                #expect(task.file == nil)
                #expect(try await api.send(.GET, "/v1/sessions/status/tasks/1/content").status == 404)
                let completion = try await api.waitForEvent("status") { $0.type == "task.completed" }
                #expect(completion.data.error?.code == "badServerResponse")
            }
        }
    }

    /// didReceiveResponse is recorded by the download's first checkpoint while its body still streams (a small
    /// download's, with its end): the task shows the response, the bytes so far and the validator to continue from.
    @Test func aResponseIsRecordedWhileItsBodyStillStreams() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("streaming")
                _ = try await api.createTask("streaming", url: origin.url("/gated/body/200000"))

                // act and verify: 64 KiB arrive, then the origin holds the rest until the gate opens
                try await waitUntil(timeout: .seconds(30)) {
                    let task = try await api.task("streaming", 1)
                    return task.response?.statusCode == 200 && task.countOfBytesReceived == 65_536
                }
                let streaming = try await api.task("streaming", 1)
                #expect(streaming.state == "running" && streaming.countOfBytesExpectedToReceive == 200_000)
                origin.open(gate: "body")
                let task = try await api.waitForCompletion("streaming", 1)
                #expect(task.error == nil && task.response?.statusCode == 200 && task.file?.size == 200_000)
            }
        }
    }

    @Test func aTruncatedBodyIsAnErrorNotASuccess() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("truncated", configuration: #"{"maximumRetries": 0}"#)
                _ = try await api.createTask("truncated", url: origin.url("/truncated/1000000"))
                let task = try await api.waitForCompletion("truncated", 1)

                #expect(task.error?.code == "networkConnectionLost", "\(task.error?.message ?? "")")
                #expect(task.file == nil)
            }
        }
    }

    @Test func redirectsAreFollowedAndTheFinalURLIsTheCurrentRequest() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("redirects")
                _ = try await api.createTask("redirects", url: origin.url("/redirect/3/1000"))
                let task = try await api.waitForCompletion("redirects", 1)

                #expect(task.error == nil)
                #expect(task.originalRequest.url == origin.url("/redirect/3/1000"))
                #expect(task.currentRequest?.url == origin.url("/files/1000"))
                #expect(task.file?.sha256 == OriginContent.sha256(size: 1000))
            }
        }
    }

    @Test func moreThanTenRedirectsFailTheTask() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("loop")
                _ = try await api.createTask("loop", url: origin.url("/redirect/11/1000"))
                let task = try await api.waitForCompletion("loop", 1)

                #expect(task.error?.code == "httpTooManyRedirects")
                #expect(task.file == nil)
            }
        }
    }

    @Test func anUnreachableHostCompletesWithCannotConnectToHost() async throws {
        try await TestService.with { api in
            try await api.createSession("refused", configuration: #"{"maximumRetries": 0}"#)
            // Port 9 (discard) is closed on the test machines; nothing listens there.
            _ = try await api.createTask("refused", url: "http://127.0.0.1:9/file")
            let task = try await api.waitForCompletion("refused", 1)

            #expect(task.error?.code == "cannotConnectToHost")
        }
    }

    @Test func sessionHeadersAndTaskHeadersReachTheOriginAndOnlyTheirNamesAreShown() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("headers", configuration: #"{"httpAdditionalHeaders": {"X-Session": "s"}}"#)
                let created = try await api.createTask(
                    "headers",
                    url: origin.url("/files/10"),
                    extra: #", "headers": {"Authorization": "Bearer secret"}"#
                )
                #expect(created.originalRequest.headers == ["Authorization"])
                let task = try await api.waitForCompletion("headers", 1)
                #expect(task.error == nil)
                let reply = try await api.send(.GET, "/v1/sessions/headers/tasks/1")
                #expect(!reply.text.contains("secret"))
            }
        }
    }
}
