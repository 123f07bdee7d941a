import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Upload tasks stream a staged file or a finished download to a real receiver, which checks what arrived.
@Suite struct UploadTests {
    static let size = 300_000

    /// Creates `session`, stages `size` bytes as file `data`, uploads it to `url` and returns the completed task.
    private func uploadStagedFile(
        _ api: APIClient,
        session: String,
        size: Int,
        to url: String,
        extra: String = ""
    ) async throws
        -> TaskView
    {
        try await api.createSession(session)
        try await api.stageFile("data", size: size)
        let created = try await api.createTask(session, url: url, kind: "upload", extra: #", "from": {"file": "data"}"# + extra)
        #expect(created.countOfBytesExpectedToSend == size)
        return try await api.waitForCompletion(session, created.taskIdentifier)
    }

    @Test(arguments: ["PUT", "POST", "PATCH"])
    func aStagedFileIsSentWholeWithItsLength(method: String) async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                let task = try await uploadStagedFile(
                    api,
                    session: "up",
                    size: Self.size,
                    to: receiver.url("raw", "reply=stored"),
                    extra: #", "method": "\#(method)""#
                )

                #expect(task.error == nil)
                #expect(task.response?.statusCode == 200)
                #expect(task.countOfBytesSent == Self.size)
                #expect(task.progress.fractionCompleted == 1)
                let received = try #require(try await receiver.received("raw").last)
                #expect(received.method == method)
                #expect(received.contentType == "application/x-test")
                #expect(received.sha256 == OriginContent.sha256(size: Self.size))
                let progress = try await api.allEvents("up").filter { $0.type == "task.upload_progress" }
                #expect(progress.last?.data.totalBytesSent == Self.size)
                #expect(try await api.send(.GET, "/v1/sessions/up/tasks/1/response-body").text == "stored")
            }
        }
    }

    @Test func aDownloadIsUploadedWithoutPassingThroughTheClient() async throws {
        try await OriginServer.with { origin in
            try await UploadReceiver.with { receiver in
                try await TestService.with { api in
                    try await api.createSession("chain")
                    _ = try await api.createTask("chain", url: origin.url("/files/\(Self.size)"))
                    try await api.waitForCompletion("chain", 1)
                    _ = try await api.createTask(
                        "chain",
                        url: receiver.url("chained"),
                        kind: "upload",
                        extra: #", "method": "POST", "from": {"task": 1}"#
                    )
                    let task = try await api.waitForCompletion("chain", 2)

                    #expect(task.error == nil)
                    #expect(try await receiver.received("chained").last?.sha256 == OriginContent.sha256(size: Self.size))
                }
            }
        }
    }

    @Test func aMultipartFormCarriesTheFieldsAndTheFile() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                try await api.createSession("form")
                try await api.stageFile("photo", size: Self.size, contentType: "image/jpeg")
                let multipart = #"{"field": "upload", "filename": "photo.jpg", "fields": {"album": "holidays", "note": "day one"}}"#
                let created = try await api.createTask(
                    "form",
                    url: receiver.url("form"),
                    kind: "upload",
                    extra: #", "method": "POST", "from": {"file": "photo"}, "multipart": \#(multipart)"#
                )
                let task = try await api.waitForCompletion("form", 1)

                #expect(task.error == nil)
                let received = try #require(try await receiver.received("form").last)
                #expect(received.contentType.hasPrefix("multipart/form-data; boundary="))
                #expect(received.size == created.countOfBytesExpectedToSend, "Content-Length was computed up front")
                #expect(received.parts.map(\.name) == ["album", "note", "upload"])
                #expect(received.parts.compactMap(\.value) == ["holidays", "day one"])
                let file = try #require(received.parts.last)
                #expect(file.filename == "photo.jpg")
                #expect(file.contentType == "image/jpeg")
                #expect(file.sha256 == OriginContent.sha256(size: Self.size))
            }
        }
    }

    /// A file name an uploader chose (tus `Upload-Metadata`) goes into the part's header with its control
    /// characters and quotes replaced: it cannot end the header and add one of its own.
    @Test func anUploadersFileNameCannotAddHeadersToItsPart() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                try await api.createSession("named")
                let name = Data("evil\r\nX-Injected: 1\n\".txt".utf8).base64EncodedString()
                let staged = try await api.send(
                    .POST,
                    "/v1/files",
                    headers: [
                        ("Tus-Resumable", "1.0.0"), ("Upload-Length", "10"), ("Upload-Metadata", "filename \(name)"),
                        ("Content-Type", "application/offset+octet-stream"),
                    ],
                    bytes: OriginContent.buffer(0..<10)
                )
                let file = try #require(staged.headers.first(name: "Location")?.split(separator: "/").last)
                _ = try await api.createTask(
                    "named",
                    url: receiver.url("named"),
                    kind: "upload",
                    extra: #", "method": "POST", "from": {"file": "\#(file)"}, "multipart": {"field": "upload"}"#
                )
                #expect(try await api.waitForCompletion("named", 1).error == nil)

                let received = try #require(try await receiver.received("named").last)
                #expect(received.parts.map(\.name) == ["upload"])
                #expect(received.parts.first?.filename == "evil__X-Injected: 1__.txt")
                #expect(received.parts.first?.sha256 == OriginContent.sha256(size: 10))
            }
        }
    }

    @Test func aRefusedUploadFailsAndKeepsTheServersExplanation() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                let task = try await uploadStagedFile(
                    api,
                    session: "refused",
                    size: 1000,
                    to: receiver.url("refused", "status=422&reply=quota%20exceeded")
                )

                #expect(task.error?.code == "badServerResponse")
                #expect(task.error?.statusCode == 422)
                #expect(task.responseBody?.truncated == false)
                let body = try await api.send(.GET, "/v1/sessions/refused/tasks/1/response-body")
                #expect(body.text == "quota exceeded")
                #expect(body.headers.first(name: "Transferd-Response-Body-Truncated") == "false")
            }
        }
    }

    @Test func aLargeReplyIsTruncatedAtTheCap() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with(configure: { $0.replyBodyLimit = 1000 }) { api in
                let task = try await uploadStagedFile(api, session: "chatty", size: 10, to: receiver.url("chatty", "replySize=5000"))

                #expect(task.error == nil)
                #expect(task.responseBody?.size == 1000)
                #expect(task.responseBody?.truncated == true)
                let body = try await api.send(.GET, "/v1/sessions/chatty/tasks/1/response-body")
                #expect(body.body.count == 1000)
                #expect(body.headers.first(name: "Transferd-Response-Body-Truncated") == "true")
            }
        }
    }

    @Test func aTransientFailureSendsTheWholeBodyAgain() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                let task = try await uploadStagedFile(api, session: "again", size: Self.size, to: receiver.url("again", "failures=1"))

                #expect(task.attempts.map(\.outcome) == ["badServerResponse", "succeeded"])
                let received = try await receiver.received("again")
                #expect(received.count == 2)
                #expect(received.allSatisfy { $0.sha256 == OriginContent.sha256(size: Self.size) })
            }
        }
    }

    @Test func aBrokenConnectionIsRetriedWithTheWholeBody() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                let task = try await uploadStagedFile(
                    api,
                    session: "broken",
                    size: Self.size,
                    to: receiver.url("broken", "failures=1&drop=1")
                )

                #expect(task.attempts.map(\.outcome).last == "succeeded")
                #expect(task.attempts.count == 2)
                #expect(try await receiver.received("broken").map(\.sha256) == [OriginContent.sha256(size: Self.size)])
            }
        }
    }

    @Test func uploadsAreSuspendedResumedAndCancelledLikeDownloads() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                try await api.createSession("states")
                try await api.stageFile("data", size: Self.size)
                let slow = receiver.url("states", "bytesPerSecond=200000")
                _ = try await api.createTask("states", url: slow, kind: "upload", extra: #", "from": {"file": "data"}"#)
                _ = try await api.createTask("states", url: slow, kind: "upload", extra: #", "from": {"file": "data"}"#)
                try await waitUntil { try await api.task("states", 1).countOfBytesSent > 0 }

                let suspended = try await api.send(.POST, "/v1/sessions/states/tasks/1/suspend").decode(TaskView.self)
                #expect(suspended.state == "suspended")
                let cancelled = try await api.send(.POST, "/v1/sessions/states/tasks/2/cancel").decode(TaskView.self)
                #expect(["canceling", "completed"].contains(cancelled.state))
                _ = try await api.send(.POST, "/v1/sessions/states/tasks/1/resume")

                #expect(try await api.waitForCompletion("states", 1).error == nil)
                #expect(try await api.waitForCompletion("states", 2).error?.code == "cancelled")
                // The receiver may have read whole bodies of the interrupted attempts from its socket buffer; the
                // resumed task's attempt is the one that completed.
                #expect(try await receiver.received("states").last?.sha256 == OriginContent.sha256(size: Self.size))
            }
        }
    }

    @Test func whatAWaitingUploadWillSendCannotBeDeleted() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("held")
                try await api.stageFile("data", size: 10)
                _ = try await api.createTask("held", url: origin.url("/files/10"))
                try await api.waitForCompletion("held", 1)
                let upload = #", "start": false"#
                _ = try await api.createTask(
                    "held",
                    url: "http://127.0.0.1:9/",
                    kind: "upload",
                    extra: upload + #", "from": {"file": "data"}"#
                )
                _ = try await api.createTask("held", url: "http://127.0.0.1:9/", kind: "upload", extra: upload + #", "from": {"task": 1}"#)

                let file = try await api.send(.DELETE, "/v1/files/data")
                #expect(file.status == 409)
                #expect(file.problem?.detail == "File `data` is used by upload task(s) 2.")
                #expect(try await api.send(.DELETE, "/v1/sessions/held/tasks/1/content").status == 409)

                _ = try await api.send(.POST, "/v1/sessions/held/tasks/2/cancel")
                _ = try await api.send(.POST, "/v1/sessions/held/tasks/3/cancel")
                #expect(try await api.send(.DELETE, "/v1/files/data").status == 204)
                #expect(try await api.send(.DELETE, "/v1/sessions/held/tasks/1/content").status == 204)
            }
        }
    }

    @Test func uploadsRefuseWhatTheyCannotSend() async throws {
        try await TestService.with { api in
            try await api.createSession("bad")
            _ = try await api.send(.POST, "/v1/files", headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "10")])
            let cases: [(String, Int, String)] = [
                (#""from": {"file": "nothing"}"#, 400, "`from.file` does not name a file (`nothing`)."),
                (#""from": {"task": 7}"#, 409, "Task 7 has no downloaded content in this session to upload."),
                (#""from": {}"#, 400, "`from` must have exactly one of `file`, `task` and `storage` (with `key`)."),
                (#""from": {"file": "a"}, "method": "GET""#, 400, "`method` must be PUT, POST or PATCH for an upload."),
                (
                    #""from": {"file": "a"}, "checksum": {"algorithm": "sha256", "value": "00"}"#, 400,
                    "`checksum` applies to downloads only."
                ),
                (
                    #""from": {"file": "a"}, "multipart": {"field": "a\"b"}"#, 400,
                    "`multipart.field` must not contain control characters (CR, LF) or double quotes."
                ),
                // A lone LF or CR is a line break to lenient parsers: a header injected into the part (found by
                // Tests/Fuzz's multipart target).
                (
                    #""from": {"file": "a"}, "multipart": {"field": "a\nContent-Type: text/html"}"#, 400,
                    "`multipart.field` must not contain control characters (CR, LF) or double quotes."
                ),
                (
                    #""from": {"file": "a"}, "multipart": {"field": "f", "fields": {"n\rX-Injected: 1": "v"}}"#, 400,
                    "`multipart.fields.n\rX-Injected: 1` must have a non-empty name without control characters or quotes, and a value on one line."
                ),
                (
                    #""from": {"file": "a"}, "multipart": {"field": "f", "filename": "a\u0000b"}"#, 400,
                    "`multipart.filename` must be non-empty, without control characters or double quotes."
                ),
            ]
            for (fields, status, detail) in cases {
                let reply = try await api.send(
                    .POST,
                    "/v1/sessions/bad/tasks",
                    json: #"{"kind": "upload", "url": "http://127.0.0.1:9/", \#(fields)}"#
                )
                #expect(reply.status == status, "\(fields)")
                #expect(reply.problem?.detail == detail)
            }
            let download = try await api.send(
                .POST,
                "/v1/sessions/bad/tasks",
                json: #"{"kind": "download", "url": "http://a/", "method": "PUT"}"#
            )
            #expect(download.problem?.detail == "`method` applies to uploads only.")
        }
    }

    @Test func anUploadCutShortByACrashIsSentAgainAfterTheRestart() async throws {
        try await UploadReceiver.with { receiver in
            let dataDirectory = DataDirectories.temporary()
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { first.stopIfRunning() }
            try await first.api.createSession("crash")
            try await first.api.stageFile("data", size: 2_000_000)
            _ = try await first.api.createTask(
                "crash",
                url: receiver.url("crash", "bytesPerSecond=500000"),
                kind: "upload",
                extra: #", "from": {"file": "data"}"#
            )
            try await waitUntil { try await first.api.task("crash", 1).countOfBytesSent > 0 }

            try await first.kill()
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { second.stopIfRunning() }
            let task = try await second.api.waitForCompletion("crash", 1, timeout: .seconds(120))
            let events = try await second.api.allEvents("crash")
            try await second.terminate()

            #expect(task.error == nil)
            #expect(events.count { $0.type == "task.completed" } == 1)
            let received = try await receiver.received("crash")
            #expect(received.last?.sha256 == OriginContent.sha256(size: 2_000_000))
        }
    }
}
