import Foundation
import Testing
import TransferdTestOrigins

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
                #expect(task.response?.headers.additionalProperties["content-encoding"] == "gzip")
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

    /// A decompression bomb (50 MiB of zeros in 50 kB) is refused while it decodes, not once it is on disk.
    @Test func aDecompressionBombIsRefusedAsItDecodes() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("bomb", configuration: #"{"decodeContent": true}"#)
                _ = try await api.createTask("bomb", url: origin.url("/gzip-zeros/\(50 << 20)"))
                let task = try await api.waitForCompletion("bomb", 1)

                #expect(task.error?.code == "cannotDecodeContentData")
                #expect(task.error?.message == "The gzip-encoded body expands more than 500-fold: refused as a decompression bomb.")
                #expect(task.countOfBytesReceived <= 2 << 20, "stopped at the first window past the allowance")
                #expect(task.attempts.count == 1, "not retried")
            }
        }
    }

    /// A task's size limit holds on the decoded bytes, checked on every window: nothing past it is written.
    @Test func maxBytesHoldsOnDecodedBytes() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("capped", configuration: #"{"decodeContent": true}"#)
                _ = try await api.createTask("capped", url: origin.url("/gzip/\(Self.size)"), extra: #", "maxBytes": 100000"#)
                let task = try await api.waitForCompletion("capped", 1)

                #expect(task.error?.code == "fileTooLarge", "\(String(describing: task.error))")
                #expect(task.countOfBytesReceived <= 100_000)
            }
        }
    }
}
