import Foundation
import Testing
import TransferdTestOrigins

/// The real binary on a small file system of its own (a tmpfs in its mount namespace), with two tenants: the
/// free-space floor holds on every write path, a full disk answers 507 or 503 and never 500, transfers wait for space
/// and go on by themselves once it is freed, and nothing acknowledged is lost.
@Suite struct FullDiskTests {
    static let mebibyte: Int64 = 1 << 20

    /// Declared lengths that cannot fit above the floor are refused at once, before a byte of the body; an append that
    /// reaches the floor midway stops with 507, keeping (and recording) what it wrote, and goes on once space is freed.
    @Test func stagedUploadsKeepTheFloorAndTheirOffsetAgreesWithTheDisk() async throws {
        let (service, t2, dataDirectory) = try await TwoTenants.start(["--min-free-disk", "\(16 * Self.mebibyte)"], filesystemMiB: 64)
        defer { service.stopIfRunning() }
        let visible = service.visiblePath(dataDirectory)
        let filler = DiskFiller(path: visible + "/filler")
        defer { filler.remove() }

        // declared lengths that cannot fit: refused at once
        let tus = try await t2.send(.POST, "/v1/files", headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "\(80 * Self.mebibyte)")])
        #expect(tus.status == 507)
        #expect(tus.problem?.type == "urn:transferd:problem:insufficient-storage")
        #expect(tus.problem?.detail.contains("needs \(80 * Self.mebibyte) bytes") == true, "\(tus.text)")
        let plain = try await RawConnection.open(
            port: service.port,
            sending: Self.head("PUT", "/v1/files/whole", key: t2.key, length: 50 * Self.mebibyte, headers: [])
        )
        defer { plain.close() }
        let refusal = try await plain.readSomething(timeout: .seconds(10))
        #expect(refusal?.hasPrefix("HTTP/1.1 507") == true, "answered before the body: \(refusal ?? "nothing")")

        // an append that reaches the floor midway
        let file = try await t2.send(.POST, "/v1/files", headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "\(30 * Self.mebibyte)")])
        #expect(file.status == 201, "\(file.text)")
        let id = try file.decode(StagedFileView.self).id
        let append = try await RawConnection.open(
            port: service.port,
            sending: Self.head(
                "PATCH",
                "/v1/files/\(id)",
                key: t2.key,
                length: 30 * Self.mebibyte,
                headers: ["Tus-Resumable: 1.0.0", "Upload-Offset: 0", "Content-Type: application/offset+octet-stream"]
            )
        )
        defer { append.close() }
        let block = String(repeating: "a", count: Int(Self.mebibyte))
        for _ in 0..<8 { try await append.write(block) }
        let staged = try await Self.stagedFile(in: visible)
        try await waitUntil { Self.size(of: staged) >= 4 * Self.mebibyte }
        try filler.leave(10 * Self.mebibyte)
        for _ in 0..<8 { try? await append.write(block) }
        let stopped = try await append.readSomething(timeout: .seconds(30))
        #expect(stopped?.hasPrefix("HTTP/1.1 507") == true, "\(stopped ?? "nothing")")
        let head = try await t2.send(.HEAD, "/v1/files/\(id)", headers: [("Tus-Resumable", "1.0.0")])
        let offset = Int64(head.headers.first(name: "Upload-Offset") ?? "") ?? -1
        #expect(offset >= 4 * Self.mebibyte && offset < 30 * Self.mebibyte, "it kept what it wrote")
        #expect(Self.size(of: staged) == offset, "Upload-Offset and the bytes on disk agree")

        // space freed: the upload goes on from its offset
        filler.remove()
        let rest = try await t2.send(
            .PATCH,
            "/v1/files/\(id)",
            headers: [("Tus-Resumable", "1.0.0"), ("Upload-Offset", "\(offset)"), ("Content-Type", "application/offset+octet-stream")],
            bytes: OriginContent.buffer(0..<Int(30 * Self.mebibyte - offset))
        )
        #expect(rest.status == 204, "\(rest.text)")
        #expect(try await t2.send(.GET, "/v1/files/\(id)").decode(StagedFileView.self).state == "complete")
    }

    /// The disk fills up under a running download and the tenants' requests: the download waits
    /// (`insufficientStorage`, recorded while the floor still leaves the database room; an attempt that ends while the
    /// disk is full cannot be recorded, and its lease runs out), every request is answered 2xx, 503 (the database's disk, with `Retry-After`) or 507, and
    /// once space is freed the download goes on from its checkpoint and completes, every acknowledged session is there,
    /// and both tenants carry on.
    @Test func aFullDiskAnswers503Or507NeverA500AndEverythingGoesOnOnceSpaceIsFreed() async throws {
        try await OriginServer.with { origin in
            let (service, t2, dataDirectory) = try await TwoTenants.start(
                ["--min-free-disk", "\(4 * Self.mebibyte)", "--lease-timeout", "5"],
                filesystemMiB: 64
            )
            defer { service.stopIfRunning() }
            let filler = DiskFiller(path: service.visiblePath(dataDirectory) + "/filler")
            defer { filler.remove() }
            let size = 24 * Int(Self.mebibyte)
            try await service.api.createSession("large")
            _ = try await service.api.createTask("large", url: origin.url("/files/\(size)?name=large&bytesPerSecond=2000000"))
            try await waitUntil { try await service.api.task("large", 1).countOfBytesReceived > 0 }

            // act: the disk fills up below the floor (the download stops and says so)
            try filler.leave(2 * Self.mebibyte)
            try await waitUntil(timeout: .seconds(30)) { try await service.api.task("large", 1).waitingReason == "insufficientStorage" }
            var acknowledged: [String] = []
            for index in 0..<10 {
                try await t2.createSession("below-floor-\(index)")
                acknowledged.append("below-floor-\(index)")
            }
            // space comes back for a moment: the download goes on by itself, and the disk fills to the last byte under it
            filler.remove()
            try await waitUntil(timeout: .seconds(30)) { origin.arrivals("large").count >= 2 }
            try filler.leave(0)
            // The attempt ends for want of space. On SQLite (the database on the full disk) its end cannot be recorded:
            // once its lease can no longer be counted on, the instance lets it go (before the fix, nothing woke the
            // scheduler when that lease expired, and the task stayed running, untouched, after space was freed).
            if SuiteDatabase.postgresURL == nil {
                try await waitUntil(timeout: .seconds(60)) {
                    service.log.split(separator: "\n").contains {
                        $0.contains(" error ") && $0.hasSuffix("could not record the end of a transfer")
                    }
                }
            } else {
                try await waitUntil(timeout: .seconds(30)) { try await service.api.task("large", 1).attempts.count >= 2 }
            }
            var statuses: [Int: Int] = [:]
            let headers = String(repeating: "x", count: 2000)
            for index in 0..<100 {
                let reply = try await t2.send(
                    .PUT,
                    "/v1/sessions/s\(index)",
                    json: #"{"configuration": {"httpAdditionalHeaders": {"X-Padding": "\#(headers)"}}}"#
                )
                statuses[reply.status, default: 0] += 1
                if reply.status == 201 { acknowledged.append("s\(index)") }
                if reply.status == 503 { #expect(reply.headers.first(name: "Retry-After") != nil) }
            }
            let staged = try await t2.send(.POST, "/v1/files", headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "1000")])
            let task = try await service.api.send(
                .POST,
                "/v1/sessions/large/tasks",
                json: #"{"kind": "download", "url": "http://127.0.0.1:9/"}"#
            )

            // verify while full
            #expect(Set(statuses.keys).isSubset(of: [201, 503, 507]), "\(statuses)")
            if SuiteDatabase.postgresURL == nil {
                #expect(statuses[503, default: 0] > 0, "SQLite's disk is the data directory's: \(statuses)")
            }
            #expect(staged.status == 507 && task.status == 507)
            #expect(service.process.isRunning)
            #expect(!service.log.contains("unhandled error"), "\(service.log)")

            // space freed: everything goes on
            filler.remove()
            let large = try await service.api.waitForCompletion("large", 1, timeout: .seconds(90))
            #expect(large.file?.sha256 == OriginContent.sha256(size: size))
            #expect(origin.ranges("large").contains { $0 != nil }, "it continued from its checkpoint")
            for identifier in acknowledged {
                #expect(try await t2.send(.GET, "/v1/sessions/\(identifier)").status == 200, "\(identifier) was acknowledged")
            }
            try await t2.createSession("after")
            _ = try await t2.createTask("after", url: origin.url("/files/1000"))
            #expect(try await t2.waitForCompletion("after", 1).file?.sha256 == OriginContent.sha256(size: 1000))
        }
    }

    /// A request head with a body of `length` bytes to come.
    private static func head(_ method: String, _ path: String, key: String?, length: Int64, headers: [String]) -> String {
        (["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer \(key ?? "")", "Content-Length: \(length)"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// The one staged file of the data directory.
    private static func stagedFile(in directory: String) async throws -> String {
        var found: String?
        try await waitUntil {
            found = try FileManager.default.contentsOfDirectory(atPath: directory + "/files").first
            return found != nil
        }
        return directory + "/files/" + (found ?? "")
    }

    private static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? -1
    }
}
