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
}
