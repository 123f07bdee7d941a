import Foundation
import Testing

@testable import transferctl

/// The pieces transferctl draws with: rates from the service's sample times, lines and tables fitted to a width,
/// and the arguments it parses.
@Suite struct TransferctlFormattingTests {
    @Test func theRateCoversTheLastFewSecondsOfSamples() throws {
        let start = Date(timeIntervalSince1970: 1_000_000)
        var meter = RateMeter(window: 5)
        #expect(meter.bytesPerSecond == nil)
        for second in 0...10 {
            // 1 MB a second for 5 s, then 3 MB a second
            let bytes = second <= 5 ? second * 1_000_000 : 5_000_000 + (second - 5) * 3_000_000
            meter.record(Int64(bytes), at: start.addingTimeInterval(Double(second)))
        }
        #expect(meter.bytesPerSecond == 3_000_000)
        #expect(meter.secondsRemaining(toward: 26_000_000) == 2)
        meter.record(1_000, at: start.addingTimeInterval(11))
        #expect(meter.bytesPerSecond == nil, "a transfer that started again measures afresh")

        // a local save reports every block: a millisecond apart, 1 kB each
        var save = RateMeter(window: 5)
        for millisecond in 0...10_000 {
            save.record(Int64(millisecond) * 1000, at: start.addingTimeInterval(Double(millisecond) / 1000))
        }
        #expect(abs((save.bytesPerSecond ?? 0) - 1_000_000) < 1)
    }

    @Test func aLineTooWideShortensItsFlexiblePartInTheMiddle() {
        let line = StyledLine([
            .init(text: "1 "), .init(text: "http://example.com/a/long/path/file.bin", flexible: true), .init(text: " 42%"),
        ])
        let rendered = line.rendered(width: 30)
        #expect(rendered == "1 http://exam…ath/file.bin 42%")
        #expect(rendered.count == 30)
        #expect(line.rendered(width: 100) == line.plain)
    }

    @Test func aTableGivesTheFlexibleColumnWhatIsLeft() {
        var table = Table([
            .init(title: "ID", alignRight: true), .init(title: "URL", flexible: true), .init(title: "SIZE", alignRight: true),
        ])
        table.rows = [
            ["7", Table.Cell("http://example.com/" + String(repeating: "x", count: 40)), "1.0 MiB"], ["12", "http://e.com/y", "3 B"],
        ]
        let lines = table.lines(width: 40).map(\.plain)
        #expect(lines.allSatisfy { $0.count == 40 }, "\(lines)")
        #expect(lines[0] == "ID  URL                             SIZE")
        #expect(lines[1].hasPrefix(" 7  http://exampl") && lines[1].contains("…") && lines[1].hasSuffix("1.0 MiB"))
        #expect(lines[2] == "12  http://e.com/y                   3 B")
    }

    @Test func moreTransfersThanLinesShowThoseUnderWayAndCountTheRest() {
        let transfers = (1...10).map { number in
            var transfer = FollowedTransfer(reference: "s/\(number)", name: "f\(number)", bytes: (0, 100))
            transfer.phase = number <= 6 ? .succeeded : number == 7 ? .failed(code: "timedOut", message: "") : .transferring
            return transfer
        }
        let lines = TransferDisplay.bars(transfers, height: 6).map(\.plain)
        #expect(lines.count == 5)
        #expect(lines.prefix(3).map { $0.prefix(4) } == ["s/8 ", "s/9 ", "s/10"], "those under way first")
        #expect(lines.last == "… 6 more: 7 of 10 finished, 1 failed")
        #expect(TransferDisplay.bars(Array(transfers.prefix(3)), height: 6).count == 3)
    }

    @Test func unitsAndArguments() {
        #expect(Units.bytes(512) == "512 B")
        #expect(Units.bytes(1536) == "1.5 KiB")
        #expect(Units.bytes(3 << 30) == "3.0 GiB")
        #expect(Units.duration(59.2) == "1m00s")
        #expect(Units.duration(3725) == "1h02m")
        #expect(Units.percent(1, of: -1) == nil)
        #expect(TaskReference(argument: "downloads/7")?.path(in: "x") == "/v1/sessions/downloads/tasks/7")
        #expect(TaskReference(argument: "7")?.path(in: "x") == "/v1/sessions/x/tasks/7")
        #expect(TaskReference(argument: "a/b/7") == nil && TaskReference(argument: "0") == nil && TaskReference(argument: "/7") == nil)
        #expect(ByteRate(argument: "512K")?.bytesPerSecond == 524_288)
        #expect(ByteRate(argument: "2m")?.bytesPerSecond == 2_097_152)
        #expect(ByteRate(argument: "fast") == nil)
        var taken: Set<String> = []
        #expect(
            ["a.iso", "a.iso", "..", "a.iso"].map { GetCommand.fileName($0, besides: &taken) } == [
                "a.iso", "a.iso.1", "download", "a.iso.2",
            ]
        )
    }
}
