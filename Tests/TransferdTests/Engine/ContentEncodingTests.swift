import Foundation
import Testing

/// `Content-Encoding: gzip` bodies are stored as sent, unless the session sets `decodeContent`.
@Suite struct ContentEncodingTests {
    static let size = 2_000_000

    @Test func aGzipBodyIsStoredAsSentByDefault() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("as-sent")
                _ = try await api.createTask("as-sent", url: origin.url("/gzip/\(Self.size)"))
                let task = try await api.waitForCompletion("as-sent", 1)

                let compressed = Data(try OriginContent.gzip(size: Self.size).readableBytesView)
                #expect(task.error == nil)
                #expect(task.file?.size == compressed.count)
                #expect(task.file?.sha256 == OriginContent.sha256(of: compressed))
                #expect(task.response?.headers["content-encoding"] == "gzip")
            }
        }
    }

    @Test func decodeContentStoresTheDecodedBytesWithTheirSize() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("decoded", configuration: #"{"decodeContent": true}"#)
                _ = try await api.createTask("decoded", url: origin.url("/gzip/\(Self.size)"))
                let task = try await api.waitForCompletion("decoded", 1)

                #expect(task.error == nil)
                #expect(task.file?.size == Self.size)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(task.countOfBytesExpectedToReceive == Self.size, "known once decoded")
                let progress = try await api.events("decoded").items.filter { $0.type == "task.progress" }
                #expect(progress.dropLast().allSatisfy { $0.data.totalBytesExpectedToWrite == -1 }, "unknown while decoding")
            }
        }
    }
}
