/// An upload sent as `multipart/form-data`: the file goes in part `field` named `filename`, after the text `fields`.
package struct MultipartForm: Codable, Sendable, Equatable {
    package var field: String
    package var filename: String?
    package var fields: [String: String]?

    package init(
        field: String,
        filename: String? = nil,
        fields: [String: String]? = nil
    ) {
        self.field = field
        self.filename = filename
        self.fields = fields
    }

    /// A form as a client asked for it, checked: names go into part headers, so a control character (CR, LF, a lone
    /// one too) or `"` in one is refused; a value must be one line (it may hold quotes).
    package init(validating field: String?, filename: String?, fields: [String: String]?) throws(DomainError) {
        guard let field, !field.isEmpty else { throw .badRequest("`multipart.field` is required.") }
        let unsafe = { (text: String) in text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\"" } }
        guard !unsafe(field) else {
            throw .invalidField("multipart.field", requirement: "must not contain control characters (CR, LF) or double quotes")
        }
        if let filename, unsafe(filename) || filename.isEmpty {
            throw .invalidField("multipart.filename", requirement: "must be non-empty, without control characters or double quotes")
        }
        for (name, value) in fields ?? [:]
        where unsafe(name) || name.isEmpty || value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw .invalidField(
                "multipart.fields.\(name)",
                requirement: "must have a non-empty name without control characters or quotes, and a value on one line"
            )
        }
        self.init(field: field, filename: filename, fields: fields)
    }
}
