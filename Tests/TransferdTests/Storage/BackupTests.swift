import Foundation
import Testing
import TransferdTestOrigins
import TransferdTestSupport

/// `transferd backup` and `transferd restore` against the real binary: a copy of the live SQLite database, taken while
/// tasks are being created, restored into a new data directory with the credentials key put in place by hand.
@Suite(.enabled(if: SuiteDatabase.postgresURL == nil, "backs up an SQLite data directory")) struct BackupTests {
    /// Every task acknowledged (201) before the backup began is in the restored database with its events, a sealed
    /// secret (a request header) still opens, and the service runs on the restored copy; creations went on throughout
    /// without one failure.
    @Test func aBackupTakenUnderLoadRestoresEveryAcknowledgedTaskEventAndSecret() async throws {
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()
            let service = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { service.stopIfRunning() }
            let api = service.api
            try await api.createSession("kept")
            let basic = Data("alice:\(OriginServer.password(of: "alice"))".utf8).base64EncodedString()
            _ = try await api.createTask(
                "kept",
                url: origin.url("/basic/alice/1000"),
                extra: #", "start": false, "headers": {"Authorization": "Basic \#(basic)"}"#
            )

            // Creations go on before, during and after the backup.
            let load = Task {
                var (acknowledged, failed) = (0, 0)
                while !Task.isCancelled {
                    do {
                        let reply = try await api.send(
                            .POST,
                            "/v1/sessions/kept/tasks",
                            json: #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false}"#
                        )
                        if reply.status == 201 { acknowledged += 1 } else { failed += 1 }
                    } catch {
                        if !Task.isCancelled { failed += 1 }
                    }
                }
                return (acknowledged, failed)
            }
            try await waitUntil(timeout: .seconds(30)) { try await api.session("kept").taskCounts.suspended >= 50 }
            let before = try await api.session("kept")
            let backup = dataDirectory + ".backup.sqlite"
            try await KeyManagement.command(["backup", "--to", backup], dataDirectory: dataDirectory)
            let atBackup = try await api.session("kept").taskCounts.suspended
            try await waitUntil(timeout: .seconds(30)) { try await api.session("kept").taskCounts.suspended > atBackup }
            load.cancel()
            let (acknowledged, failed) = await load.value
            #expect(failed == 0 && acknowledged > 0, "every creation beside the backup succeeded")
            _ = try await service.terminate()

            let restored = DataDirectories.temporary()
            try await KeyManagement.command(["restore", "--from", backup], dataDirectory: restored)
            try FileManager.default.copyItem(atPath: dataDirectory + "/credentials.key", toPath: restored + "/credentials.key")
            let again = try await ServiceProcess.start(dataDirectory: restored)
            defer { again.stopIfRunning() }
            let session = try await again.api.session("kept")
            #expect(session.taskCounts.suspended >= before.taskCounts.suspended, "every task acknowledged before the backup")
            #expect(session.lastEventSequence >= before.lastEventSequence, "and every event")
            _ = try await again.api.send(.POST, "/v1/sessions/kept/tasks/1/resume")
            let opened = try await again.api.waitForCompletion("kept", 1)
            #expect(opened.error == nil && opened.countOfBytesReceived == 1000, "the sealed header still opens")

            // A file that is not a transferd database is refused, and leaves nothing behind.
            let garbage = restored + ".garbage"
            #expect(FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 7, count: 8192)))
            let empty = DataDirectories.temporary()
            await #expect(throws: (any Error).self) {
                try await KeyManagement.command(["restore", "--from", garbage], dataDirectory: empty)
            }
            #expect(!FileManager.default.fileExists(atPath: empty + "/transferd.sqlite"))

            // Neither command overwrites anything.
            await #expect(throws: (any Error).self) {
                try await KeyManagement.command(["backup", "--to", backup], dataDirectory: dataDirectory)
            }
            await #expect(throws: (any Error).self) {
                try await KeyManagement.command(["restore", "--from", backup], dataDirectory: restored)
            }
        }
    }
}
