import Foundation
import Testing
import TransferdDomain
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import TransferdEngine
@testable import transferd

/// A download with a `checksum` finishes only when its digest matches.
@Suite struct ChecksumTests {
    @Test func crc32IsZlibsWithTheStandardCheckValue() {
        var crc = CRC32()
        Array("123456789".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.hex == "cbf43926")
        #expect(CRC32().hex == "00000000")
    }

    @Test(arguments: ["sha256", "crc32"])
    func aMatchingChecksumCompletesTheDownload(algorithm: String) async throws {
        let size = 300_000
        let value: String
        if algorithm == "crc32" {
            var crc = CRC32()
            OriginContent.bytes(0..<size).withUnsafeBytes { crc.update($0) }
            value = crc.hex
        } else {
            value = OriginContent.sha256(size: size).uppercased()
        }
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("match")
                let created = try await api.createTask(
                    "match",
                    url: origin.url("/files/\(size)"),
                    extra: #", "checksum": {"algorithm": "\#(algorithm)", "value": "\#(value)"}"#
                )
                #expect(created.checksum?.value == value.lowercased())
                let task = try await api.waitForCompletion("match", 1)
                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: size))
            }
        }
    }

    @Test(arguments: ["sha256", "crc32"])
    func aMismatchFailsTheTaskAndKeepsNoFile(algorithm: String) async throws {
        let wrong = String(repeating: "0", count: algorithm == "crc32" ? 8 : 64)
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await api.createSession("mismatch")
                _ = try await api.createTask(
                    "mismatch",
                    url: origin.url("/files/300000"),
                    extra: #", "checksum": {"algorithm": "\#(algorithm)", "value": "\#(wrong)"}"#
                )
                let task = try await api.waitForCompletion("mismatch", 1)

                #expect(task.error?.code == "checksumMismatch")
                #expect(task.error?.message.hasSuffix("not \(wrong).") == true)
                #expect(task.file == nil)
                #expect(try FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/tasks").isEmpty)
                let events = try await api.events("mismatch").items.map(\.type)
                #expect(!events.contains("task.finished_downloading"))
            }
        }
    }
}
