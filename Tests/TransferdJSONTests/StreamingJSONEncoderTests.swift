import Foundation
import Testing
import TransferdJSON

/// `StreamingJSONEncoder` writes what Foundation's `JSONEncoder` means by the same value, in the API's conventions.
@Suite struct StreamingJSONEncoderTests {
    static let encoder = StreamingJSONEncoder()

    /// Foundation's decoder, reading dates as ISO 8601 with fractional seconds: the oracle the encoder's texts are
    /// read back by.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        decoder.dateDecodingStrategy = .custom { try format.parse($0.singleValueContainer().decode(String.self)) }
        return decoder
    }()

    struct Sample: Codable, Equatable {
        enum Shape: Codable, Equatable {
            case point
            case circle(radius: Double)
            case labelled(String, Int)
        }

        var text: String
        var optional: String?
        var integers: [Int64]
        var unsigned: UInt64
        var numbers: [Double]
        var flag: Bool
        var date: Date
        var nested: [Sample]
        var headers: [String: String]
        var shapes: [Shape]
        var matrix: [[Int]]
        var counts: [Int: String]
    }

    static let sample = Sample(
        text: "quote \" backslash \\ slash / newline \n tab \t bell \u{07} nul \u{0} é 😀",
        optional: nil,
        integers: [0, -1, 42, .min, .max],
        unsigned: .max,
        numbers: [0, 0.5, 1, -3, 1e-7, 123_456.789, 1e300, 0.1],
        flag: true,
        date: Date(timeIntervalSince1970: 1_795_454_181.299),
        nested: [
            Sample(
                text: "",
                optional: "present",
                integers: [],
                unsigned: 0,
                numbers: [],
                flag: false,
                date: Date(timeIntervalSince1970: -86_400.5),
                nested: [],
                headers: [:],
                shapes: [],
                matrix: [[]],
                counts: [:]
            )
        ],
        headers: ["b": "2", "a": "1", "C": "3", "Ω": "4"],
        shapes: [.point, .circle(radius: 2.5), .labelled("x", 7)],
        matrix: [[1, 2], [], [3]],
        counts: [2: "two", 1: "one"]
    )

    @Test func readsBackAsTheValueItEncoded() throws {
        // act
        let bytes = try Self.encoder.encode(Self.sample)

        // verify: Foundation's decoder reads the value back, and both encoders' texts are the same JSON
        #expect(try Self.decoder.decode(Sample.self, from: Data(bytes)) == Self.sample)
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        let ours = try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: try foundation.encode(Self.sample)) as? NSDictionary
        #expect(ours != nil)
        #expect(ours == theirs)
    }

    @Test func writesDatesInMillisecondsForTheDatabase() throws {
        // act
        let encoder = StreamingJSONEncoder(dateFormat: .millisecondsSince1970)
        let bytes = try encoder.encode(Self.sample)

        // verify: GRDB's JSON decoding of a column reads the value back, dates included
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        #expect(try decoder.decode(Sample.self, from: Data(bytes)) == Self.sample)
        #expect(String(decoding: try encoder.encode([Date(timeIntervalSince1970: 1_795_454_181.299)]), as: UTF8.self) == "[1795454181299]")
    }

    @Test func writesMembersInDeclarationOrderAndDictionariesSorted() throws {
        // setup
        struct Answer: Encodable {
            var state = "completed"
            var url = "http://a.test/x/y"
            var headers = ["x-b": "2", "x-a": "1"]
            var progress = 1.0
            var priority = 0.5
            var error: String?
            var createdAt = Date(timeIntervalSince1970: 1_795_454_181.299)
        }

        // act
        let text = String(decoding: try Self.encoder.encode(Answer()), as: UTF8.self)

        // verify: the exact bytes, the same in every process
        #expect(
            text
                == #"{"state":"completed","url":"http://a.test/x/y","headers":{"x-a":"1","x-b":"2"},"progress":1,"priority":0.5,"#
                + #""createdAt":"2026-11-23T17:16:21.299Z"}"#
        )
    }

    @Test func aTypeThatAsksForItsObjectTwiceWritesOneObject() throws {
        // setup: as a webhook payload writes its common members, then its event's own into the same object
        struct Inner: Encodable {
            var fileOffset = 10
        }
        struct Outer: Encodable {
            enum CodingKeys: String, CodingKey { case sequence, task }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(3, forKey: .sequence)
                try container.encode(["taskIdentifier": 1], forKey: .task)
                try Inner().encode(to: encoder)
            }
        }

        // act
        let text = String(decoding: try Self.encoder.encode([Outer(), Outer()]), as: UTF8.self)

        // verify
        #expect(
            text
                == #"[{"sequence":3,"task":{"taskIdentifier":1},"fileOffset":10},{"sequence":3,"task":{"taskIdentifier":1},"fileOffset":10}]"#
        )
    }

    @Test func aValueThatEncodesNothingIsAnEmptyObject() throws {
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        #expect(String(decoding: try Self.encoder.encode(["a": Nothing()]), as: UTF8.self) == #"{"a":{}}"#)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNumberJSONCannotHoldIsAnError(_ number: Double) {
        #expect(throws: EncodingError.self) { try Self.encoder.encode(["n": number]) }
    }

    @Test func datesAreISO8601InUTCToTheNearestMillisecond() throws {
        // setup: edges of days, years and milliseconds, before 1970 and far ahead, and random instants
        var dates = [0, 0.0006, 0.9999, 59.999, 86_399.999_9, -0.001, -86_400.5, 951_782_400, 4_107_542_399.999, 253_402_300_799]
            .map { Date(timeIntervalSince1970: $0) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -2e9..<7e9, using: &generator))) }

        // verify: exact texts for the edges, and every text parses back to its instant within half a millisecond
        let texts = try dates.map { String(decoding: try Self.encoder.encode($0), as: UTF8.self) }
        #expect(
            Array(texts.prefix(8)) == [
                #""1970-01-01T00:00:00.000Z""#, #""1970-01-01T00:00:00.001Z""#, #""1970-01-01T00:00:01.000Z""#,
                #""1970-01-01T00:00:59.999Z""#, #""1970-01-02T00:00:00.000Z""#, #""1969-12-31T23:59:59.999Z""#,
                #""1969-12-30T23:59:59.500Z""#, #""2000-02-29T00:00:00.000Z""#,
            ]
        )
        for (date, text) in zip(dates, texts) {
            let parsed = try Self.decoder.decode(Date.self, from: Data(text.utf8))
            #expect(abs(parsed.timeIntervalSince(date)) <= 0.000_5 + 1e-6, "\(date.timeIntervalSince1970) → \(text)")
        }
    }
}
