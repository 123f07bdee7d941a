import Foundation
import Testing
import TransferdTestOrigins

/// `connections`: one download fetched as parallel range requests into one file, with the same integrity.
@Suite struct SegmentedDownloadTests {
    static let size = 4_000_000

    @Test func aDownloadIsFetchedInParallelSegments() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("segments")
                let url = origin.url("/files/\(Self.size)?name=seg&faults=0&bytesPerSecond=4000000")
                _ = try await api.createTask("segments", url: url, extra: #", "connections": 4"#)
                let task = try await api.waitForCompletion("segments", 1)

                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(task.connections == 4)
                let ranges = origin.ranges("seg")
                #expect(ranges.first == "bytes=0-", "the first request proves the origin honours ranges")
                // Each further connection takes the back half of the segment with the most left.
                let further = ranges.dropFirst().compactMap { $0.flatMap { ContentRangeRequest($0) } }
                #expect(further.count == 3)
                #expect(further.allSatisfy { split in split.last == Self.size - 1 || further.contains { $0.first == split.last + 1 } })
                #expect(Set(further.map(\.first)).count == 3)
                #expect(origin.maxInFlight(host: "127.0.0.1:\(origin.port)") >= 2)
            }
        }
    }

    @Test func anOriginWithoutRangesGetsOneStream() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("one-stream")
                _ = try await api.createTask(
                    "one-stream",
                    url: origin.url("/files/\(Self.size)?name=one&ignoreRange=1"),
                    extra: #", "connections": 8"#
                )
                let task = try await api.waitForCompletion("one-stream", 1)

                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(origin.ranges("one") == ["bytes=0-"])
            }
        }
    }

    @Test func aBrokenSegmentedDownloadResumesAndSplitsWhatIsLeft() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                try await api.createSession("broken")
                let url = origin.url("/files/\(Self.size)?name=broken&dropAfter=300000&bytesPerSecond=4000000")
                _ = try await api.createTask("broken", url: url, extra: #", "connections": 2"#)
                let task = try await api.waitForCompletion("broken", 1)

                #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                #expect(task.attempts.map(\.outcome) == ["networkConnectionLost", "succeeded"])
                let offset = try #require(try await api.resumedAtOffset("broken", 1).fileOffset)
                #expect(offset > 0)
                #expect(origin.ranges("broken").contains("bytes=\(offset)-"), "the rest is split again after the continuing request")
            }
        }
    }
}

/// A `Range: bytes=first-last` request header as a test reads it.
private struct ContentRangeRequest {
    let first: Int
    let last: Int

    init?(_ header: String) {
        let bounds = header.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
        guard header.hasPrefix("bytes="), bounds.count == 2 else { return nil }
        (first, last) = (bounds[0], bounds[1])
    }
}
