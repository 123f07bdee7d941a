import Foundation

/// The API's JSON conventions on the client's side: dates are ISO 8601 in UTC with milliseconds, as the service
/// writes them.
enum APIJSON {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        decoder.dateDecodingStrategy = .custom { try format.parse($0.singleValueContainer().decode(String.self)) }
        return decoder
    }()

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
