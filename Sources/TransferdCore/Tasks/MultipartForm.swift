/// An upload sent as `multipart/form-data`: the file goes in part `field` named `filename`, after the text `fields`.
struct MultipartForm: Codable, Sendable, Equatable {
    var field: String
    var filename: String?
    var fields: [String: String]?
}
