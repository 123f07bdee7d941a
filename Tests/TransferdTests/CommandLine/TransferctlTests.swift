import Foundation
import Testing
import TransferdTestOrigins

/// The real `transferctl` binary against a real service and origin on 127.0.0.1, its output not a terminal: exit
/// statuses, saved files and their SHA-256, the API's JSON as it is, and one clear line for every failure.
@Suite struct TransferctlTests {
    static func outputDirectory() throws -> String {
        let directory = DataDirectories.temporary() + "-out"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs transferctl against `api` through `Tests/Interop/cutting_proxy.py`, which breaks the first connection
    /// that carries `marker` after `after` bytes going `direction` (`up`: of the request, `down`: of the answer).
    static func runBreaking(
        _ cut: (marker: String, after: Int, direction: String),
        _ arguments: [String],
        api: APIClient
    ) async throws -> TransferctlProcess.Result {
        let port = try #require(api.baseURL.split(separator: ":").last.flatMap { Int($0) })
        return try await InteropScript.serving(
            "cutting_proxy.py",
            arguments: [String(port), cut.marker, String(cut.after), cut.direction],
            hint: "python3 is needed"
        ) { proxy in
            var environment = TransferctlProcess.environment(api)
            environment["TRANSFERD_URL"] = "http://127.0.0.1:\(proxy)"
            return try await TransferctlProcess.run(arguments, environment: environment)
        }
    }

    @Test func getSavesEachDownloadAndExitsZeroOnlyWhenAllSucceeded() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let directory = try Self.outputDirectory()
                let sizes = [300_000, 5_000]

                // act: two downloads into a directory, then one that fails beside one that succeeds
                let saved = try await TransferctlProcess.run(
                    "get",
                    origin.url("/files/\(sizes[0])?name=first"),
                    origin.url("/files/\(sizes[1])?name=second"),
                    "-o",
                    directory,
                    api: api
                )
                let failed = try await TransferctlProcess.run(
                    "get",
                    origin.url("/status/404"),
                    origin.url("/files/6000?name=third"),
                    "-o",
                    directory,
                    "-s",
                    "other",
                    api: api
                )

                // verify: the files on disk are the origin's, and the failure is named with its error code
                #expect(saved.status == 0, "\(saved.errors)")
                for (name, size) in zip([String(sizes[0]), String(sizes[1])], sizes) {
                    let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))
                    #expect(OriginContent.sha256(of: data) == OriginContent.sha256(size: size))
                }
                #expect(saved.output.contains("transferctl/1 \(sizes[0]): completed"))
                #expect(failed.status == 1)
                #expect(failed.errors.contains("other/1 failed: badServerResponse"), "\(failed.errors)")
                #expect(failed.errors.hasSuffix("transferctl: 1 transfer failed\n"))
                #expect(FileManager.default.fileExists(atPath: directory + "/6000"), "the download that succeeded is saved")
                #expect(try await api.session("other").taskCounts["completed"] == 2)
            }
        }
    }

    @Test func aWrongChecksumFailsTheTaskWithItsCode() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let wrong = String(repeating: "0", count: 64)
                let result = try await TransferctlProcess.run("get", origin.url("/files/1000"), "--sha256", wrong, api: api)
                #expect(result.status == 1)
                #expect(result.errors.contains("transferctl/1 failed: checksumMismatch"), "\(result.errors)")
            }
        }
    }

    @Test func getFetchesOneURLFromItsMirrorsAndSavesIt() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let directory = DataDirectories.temporary()
                let urls = ["m1", "m2", "m3"].map { origin.url("/files/3000000?name=\($0)&faults=0&bytesPerSecond=2000000") }
                let result = try await TransferctlProcess.run(
                    "get",
                    urls[0],
                    "--mirror",
                    urls[1],
                    "--mirror",
                    urls[2],
                    "-o",
                    directory + "/file",
                    "-s",
                    "mirrored",
                    api: api
                )
                #expect(result.status == 0, "\(result.errors)")
                #expect(
                    FileManager.default.contents(atPath: directory + "/file") == Data(OriginContent.buffer(0..<3_000_000).readableBytesView)
                )
                #expect(try await api.task("mirrored", 1).mirrors == Array(urls.dropFirst()))
                #expect(!origin.ranges("m2").isEmpty && !origin.ranges("m3").isEmpty)
                let twoURLs = try await TransferctlProcess.run("get", urls[0], urls[1], "--mirror", urls[2], api: api)
                #expect(twoURLs.status != 0)
                #expect(twoURLs.errors.contains("--mirror names other sources of one URL: give one"), "\(twoURLs.errors)")
            }
        }
    }

    @Test func aSaveBrokenMidwayContinuesWithARangeRequestAndABadPartialFileIsSavedAgain() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let size = 3_000_000
                let directory = try Self.outputDirectory()
                let marker = "GET /v1/sessions/transferctl/tasks/1/content"

                // act: through a proxy that breaks the first content answer after 1 MB
                let broken = try await Self.runBreaking(
                    (marker, after: 1_000_000, "down"),
                    ["get", origin.url("/files/\(size)"), "-o", directory + "/whole"],
                    api: api
                )
                // act: over a partial file whose first bytes are not the content's (an earlier save gone wrong)
                #expect(FileManager.default.createFile(atPath: directory + "/again.part", contents: Data(count: 1000)))
                let corrupted = try await TransferctlProcess.run("get", origin.url("/files/\(size)"), "-o", directory + "/again", api: api)

                // verify: both saved files are the content, and each says how it got there
                #expect(broken.status == 0, "\(broken.errors)")
                #expect(broken.output.contains("continuing from"), "\(broken.output) \(broken.errors)")
                #expect(corrupted.status == 0, "\(corrupted.errors)")
                #expect(corrupted.output.contains("saving again from the start"), "\(corrupted.output)")
                for name in ["whole", "again"] {
                    let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))
                    #expect(OriginContent.sha256(of: data) == OriginContent.sha256(size: size))
                    #expect(!FileManager.default.fileExists(atPath: "\(directory)/\(name).part"))
                }
            }
        }
    }

    @Test func putStagesTheFileResumingAfterABrokenConnectionAndPrintsTheReplyStatus() async throws {
        try await UploadReceiver.with { receiver in
            try await TestService.with { api in
                let size = 2_000_000
                let file = try Self.outputDirectory() + "/payload.bin"
                #expect(FileManager.default.createFile(atPath: file, contents: Data(OriginContent.bytes(0..<size))))

                // act: through a proxy that breaks the first PATCH after 500 kB of it, then a refused upload
                let put = try await Self.runBreaking(
                    ("PATCH /v1/files/", after: 500_000, "up"),
                    ["put", file, receiver.url("sent"), "--method", "POST", "--multipart", "document"],
                    api: api
                )
                let refused = try await TransferctlProcess.run("put", file, receiver.url("refused", "status=400"), api: api)

                // verify: the receiver got the whole file once, as a multipart part; the refusal's status is named
                #expect(put.status == 0, "\(put.errors)")
                #expect(put.output.contains("reply: 200"), "\(put.output)")
                #expect(put.output.contains("staging payload.bin: the connection broke; continuing from"), "\(put.output)")
                let received = try await receiver.received("sent")
                #expect(received.count == 1)
                #expect(received.first?.method == "POST")
                #expect(received.first?.parts.first?.name == "document")
                #expect(received.first?.parts.first?.filename == "payload.bin")
                #expect(received.first?.parts.first?.sha256 == OriginContent.sha256(size: size))
                #expect(refused.status == 1)
                #expect(refused.output.contains("reply: 400"))
                #expect(refused.errors.contains("failed: badServerResponse"), "\(refused.errors)")
            }
        }
    }

    @Test func readCommandsPrintTheAPIsJSONAsItIs() async throws {
        try await TestService.with { api in
            try await api.createSession("json")
            _ = try await api.createTask("json", url: "http://127.0.0.1:9/a", extra: #", "start": false"#)
            _ = try await api.send(.POST, "/v1/sessions/json/tasks/1/cancel")

            // act and verify: each command's stdout is the body of the request it stands for
            for (command, path) in [
                (["ls", "-s", "json", "--json"], "/v1/sessions/json/tasks?limit=1000"),
                (["show", "json/1", "--json"], "/v1/sessions/json/tasks/1"),
                (["events", "-s", "json", "--json"], "/v1/sessions/json/events?after=0&limit=1000"),
                (["deliveries", "-s", "json", "--json"], "/v1/sessions/json/deliveries?limit=1000"),
                (["sessions", "show", "json", "--json"], "/v1/sessions/json"),
            ] {
                let result = try await TransferctlProcess.run(command, environment: TransferctlProcess.environment(api))
                let body = try await api.send(.GET, path).text
                #expect(result.status == 0, "\(command): \(result.errors)")
                #expect(result.output == body + "\n", "\(command)")
            }
        }
    }

    @Test func sessionsAndTaskActions() async throws {
        try await TestService.with { api in
            // act: create a session with options, a suspended task in it, then act on the task and the session
            let created = try await TransferctlProcess.run(
                "sessions",
                "create",
                "tools",
                "--max-connections-per-host",
                "2",
                "--header",
                "X-Team: data",
                api: api
            )
            _ = try await api.createTask("tools", url: "http://127.0.0.1:9/a", extra: #", "start": false"#)
            let listed = try await TransferctlProcess.run("sessions", api: api)
            let cancelled = try await TransferctlProcess.run("cancel", "tools/1", api: api)
            let again = try await TransferctlProcess.run("suspend", "1", "-s", "tools", api: api)
            let shown = try await TransferctlProcess.run("show", "tools/1", api: api)
            let invalidated = try await TransferctlProcess.run("sessions", "invalidate", "tools", api: api)

            // verify
            #expect(created.output == "tools: created\n", "\(created.errors)")
            let session = try await api.session("tools")
            #expect(session.configuration.value1.maximumConnectionsPerHost == 2)
            #expect(session.configuration.value1.httpAdditionalHeaders?.additionalProperties == ["X-Team": "data"])
            #expect(listed.output.contains("tools"))
            #expect(cancelled.output == "tools/1: failed: cancelled\n")
            #expect(again.status == 2, "suspending a completed task is refused")
            #expect(again.errors.hasPrefix("transferctl: transferd answered 409"), "\(again.errors)")
            #expect(again.errors.split(separator: "\n").count == 1)
            #expect(shown.output.contains("task.created") && shown.output.contains("task.completed"))
            #expect(shown.output.contains("cancelled"))
            #expect(invalidated.output == "tools: invalidated\n")
        }
    }

    @Test func fetchSchedulesAreAddedListedPausedResumedAndRemoved() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // act: a schedule added, its first run judged, then listed, paused, resumed and removed
                let added = try await TransferctlProcess.run(
                    "fetch",
                    "add",
                    origin.url("/feed/cli"),
                    "--every",
                    "900",
                    "-s",
                    "feeds",
                    api: api
                )
                let id = try #require(
                    added.output.split(separator: ":").first?.split(separator: "/").last.map(String.init),
                    "\(added.errors)"
                )
                _ = try await BackgroundFetchTests.performed(api, "feeds", count: 1)
                let listed = try await TransferctlProcess.run("fetch", "ls", "-s", "feeds", api: api)
                let paused = try await TransferctlProcess.run("fetch", "pause", id, "-s", "feeds", api: api)
                let resumed = try await TransferctlProcess.run("fetch", "resume", id, "-s", "feeds", api: api)
                let removed = try await TransferctlProcess.run("fetch", "rm", id, "-s", "feeds", api: api)
                let refused = try await TransferctlProcess.run(
                    "fetch",
                    "add",
                    origin.url("/feed/cli"),
                    "--every",
                    "30",
                    "-s",
                    "feeds",
                    api: api
                )
                let empty = try await TransferctlProcess.run("fetch", "ls", "-s", "feeds", "--json", api: api)

                // verify
                #expect(added.status == 0 && added.output.hasPrefix("feeds/fetch_"), "\(added.errors)")
                #expect(added.output.contains("every 15m00s, first run "), "\(added.output)")
                let row = try #require(listed.output.split(separator: "\n").first { $0.hasPrefix(id) }, "\(listed.output)")
                #expect(row.contains("scheduled") && row.contains("newData") && row.contains("/feed/cli"), "\(row)")
                #expect(paused.output == "feeds/\(id): paused\n", "\(paused.errors)")
                #expect(resumed.output.hasPrefix("feeds/\(id): scheduled, next run "), "\(resumed.errors)")
                #expect(removed.output == "feeds/\(id): removed\n", "\(removed.errors)")
                #expect(refused.status == 2 && refused.errors.contains("`interval`"), "\(refused.errors)")
                #expect(empty.output.hasPrefix(#"{"items":[]"#), "\(empty.output)")
            }
        }
    }

    @Test func aMissingKeyOrAnUnreachableServiceIsOneClearLine() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TRANSFERD_API_KEY"] = nil
        let noKey = try await TransferctlProcess.run(["ls"], environment: environment)
        environment["TRANSFERD_API_KEY"] = "trd_x"
        environment["TRANSFERD_URL"] = "http://127.0.0.1:9"
        let unreachable = try await TransferctlProcess.run(["ls"], environment: environment)

        #expect(noKey.status == 64)
        #expect(noKey.errors.hasPrefix("transferctl: no API key: pass --api-key or set TRANSFERD_API_KEY"), "\(noKey.errors)")
        #expect(noKey.errors.split(separator: "\n").count == 1)
        #expect(unreachable.status == 3)
        #expect(
            unreachable.errors
                == "transferctl: cannot reach transferd at http://127.0.0.1:9: connection refused (set --url or TRANSFERD_URL)\n"
        )
    }

    @Test func followingSurvivesABrokenEventStreamAndLsShowsTheRate() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                let urls = (1...3).map { origin.url("/files/2000000?name=f\($0)&bytesPerSecond=400000") }

                // act: get follows through a proxy that breaks its event stream after 2 kB; meanwhile ls
                async let followed = Self.runBreaking(
                    ("GET /v1/sessions/transferctl/events", after: 2000, "down"),
                    ["get"] + urls,
                    api: api
                )
                try await waitUntil {
                    let events = (try? await api.allEvents("transferctl")) ?? []
                    return events.filter { $0.type == "task.progress" && $0.taskIdentifier == 1 }.count >= 2
                }
                // The first download is held to 1 KiB/s while ls runs, so that it still runs then: ls is a process of
                // its own, and on a loaded machine it started after the 5 s the download takes (found on PostgreSQL).
                let task = "/v1/sessions/transferctl/tasks/1"
                #expect(try await api.send(.PATCH, task, json: #"{"maxBytesPerSecond": 1024}"#).status == 200)
                let listed = try await TransferctlProcess.run("ls", api: api)
                #expect(try await api.send(.PATCH, task, json: #"{"maxBytesPerSecond": null}"#).status == 200)
                let result = try await followed

                // verify: every task was followed to its end, and the running one had a rate
                #expect(result.status == 0, "\(result.errors)")
                for task in 1...3 { #expect(result.output.contains("transferctl/\(task) 2000000: completed"), "\(result.output)") }
                let row = try #require(listed.output.split(separator: "\n").first { $0.hasPrefix(" 1 ") || $0.hasPrefix("1 ") })
                #expect(row.contains("KiB/s"), "\(listed.output)")
            }
        }
    }

    @Test func eventsAndDeliveries() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                try await api.deadLetterTestEvents("hooked", to: receiver)

                // act
                let events = try await TransferctlProcess.run("events", "-s", "hooked", api: api)
                let failed = try await TransferctlProcess.run("deliveries", "-s", "hooked", "--status", "failed", api: api)
                receiver.refuse(with: nil)
                let replayed = try await TransferctlProcess.run("deliveries", "-s", "hooked", "--replay-failed", api: api)
                try await api.waitUntilAllAcknowledged("hooked")

                // verify
                #expect(events.output.contains("webhook.test"), "\(events.output)")
                #expect(failed.output.contains("failed") && failed.output.contains("The subscriber answered 500."), "\(failed.output)")
                #expect(replayed.output == "replaying 1 failed deliveries\n", "\(replayed.errors)")
                #expect(try await api.deliveries("hooked", status: "delivered").count == 1)
            }
        }
    }

    @Test func aSessionsEventFilterIsSetAndADeliverysAttemptsShowTheReplyDefused() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                // setup: a subscriber whose reply would clear the operator's screen and retitle the terminal
                receiver.refuse(with: 500, body: "\u{1b}[2J\u{1b}]0;pwned\u{07}gone fishing")
                let created = try await TransferctlProcess.run(
                    "sessions",
                    "create",
                    "filtered",
                    "--webhook",
                    receiver.url,
                    "--events",
                    "webhook.test, task.completed",
                    api: api
                )
                _ = try await api.send(.POST, "/v1/sessions/filtered/webhook/test")
                try await waitUntil { try await api.deliveries("filtered", status: "failed").count == 1 }

                // act
                let shown = try await TransferctlProcess.run("deliveries", "-s", "filtered", "--id", "1", api: api)
                let missing = try await TransferctlProcess.run("deliveries", "-s", "filtered", "--id", "99", api: api)
                let unfiltered = try await TransferctlProcess.run("sessions", "create", "x", "--events", "task.completed", api: api)

                // verify
                #expect(created.status == 0, "\(created.errors)")
                let webhook = try await api.send(.GET, "/v1/sessions/filtered/webhook").decode(WebhookView.self)
                #expect(webhook.events?.map(\.rawValue) == ["webhook.test", "task.completed"])
                #expect(shown.output.contains("HTTP 500") && shown.output.contains("gone fishing"), "\(shown.output)")
                #expect(!shown.output.contains("\u{1b}") && !shown.output.contains("\u{07}"), "no control character reaches the terminal")
                #expect(missing.status == 2 && missing.errors.contains("404"), "\(missing.errors)")
                #expect(unfiltered.status != 0 && unfiltered.errors.contains("--webhook"), "\(unfiltered.errors)")
            }
        }
    }
}
