import Foundation
import TransferdJSON

/// The JSON conventions of the API: ISO 8601 dates in UTC with milliseconds (either form is read), the same bytes
/// for the same value.
///
/// One encoder and one decoder serve every request (both are safe to share once configured): making them, and a
/// date format per date, for each response was a measurable part of a small request's cost.
package enum JSONCoding {
    /// Writes API answers and webhook bodies (`StreamingJSONEncoder` says how).
    package static let encoder = StreamingJSONEncoder()

    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = (try? withMilliseconds.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date-time"))
            }
            return date
        }
        return decoder
    }()

    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
