import ArgumentParser
import Foundation

/// Headers given as repeated `--header 'Name: value'` options.
enum HeaderArguments {
    /// Refuses an option without a colon.
    static func validate(_ headers: [String]) throws(ValidationError) {
        for header in headers where !header.contains(":") { throw ValidationError("--header takes 'Name: value', got '\(header)'") }
    }

    /// The headers by name, names and values trimmed; nil when none was given.
    static func fields(_ headers: [String]) -> [String: String]? {
        var fields: [String: String] = [:]
        for header in headers {
            let (name, value) = (header.prefix { $0 != ":" }, header.drop { $0 != ":" }.dropFirst())
            fields[String(name).trimmingCharacters(in: .whitespaces)] = String(value).trimmingCharacters(in: .whitespaces)
        }
        return fields.isEmpty ? nil : fields
    }
}
