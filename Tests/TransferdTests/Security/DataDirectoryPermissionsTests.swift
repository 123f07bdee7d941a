import Foundation
import Testing
import TransferdTestOrigins

/// Only the service's user can read the data directory: the database, the credentials key and every transferred byte.
@Suite struct DataDirectoryPermissionsTests {
    private static func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test func theDataDirectoryAndEverythingInItArePrivate() async throws {
        try await OriginServer.with { origin in
            // setup: a directory an earlier version left open, with an open file in it
            let dataDirectory = DataDirectories.temporary()
            chmod(dataDirectory, 0o755)
            #expect(FileManager.default.createFile(atPath: dataDirectory + "/left-open", contents: Data("x".utf8)))
            chmod(dataDirectory + "/left-open", 0o644)

            try await TestService.with(dataDirectory: dataDirectory) { api in
                // act
                try await api.createSession("private")
                _ = try await api.createTask("private", url: origin.url("/files/1000"))
                try await api.waitForCompletion("private", 1)

                // verify: the directory and its folders 0700, every file 0600, the downloaded content included
                #expect(Self.mode(dataDirectory) == 0o700)
                let entries = try FileManager.default.subpathsOfDirectory(atPath: dataDirectory)
                #expect(entries.contains("credentials.key") && entries.contains { $0.hasPrefix("tasks/") })
                for entry in entries {
                    var isDirectory: ObjCBool = false
                    _ = FileManager.default.fileExists(atPath: dataDirectory + "/" + entry, isDirectory: &isDirectory)
                    #expect(Self.mode(dataDirectory + "/" + entry) == (isDirectory.boolValue ? 0o700 : 0o600), "\(entry)")
                }
            }
        }
    }
}
