import Foundation

/// The framing of a `multipart/form-data` upload (RFC 7578) around a file streamed from disk: the text fields and
/// the file part's head go before the file's bytes, the closing boundary after, so that the whole length is known
/// before the first byte is sent.
package struct MultipartFraming: Sendable, Equatable {
    package let boundary: String
    package let head: String
    package let tail: String

    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The bytes the framing adds to the file's.
    package var length: Int64 { Int64(head.utf8.count + tail.utf8.count) }

    /// The form's names and values were checked when it was made (`MultipartForm(field:filename:fields:)`); the file
    /// name and content type come from elsewhere (an uploader's metadata, an origin's header) and are made safe here.
    package init(form: MultipartForm, filename: String, fileContentType: String, boundary: String = "transferd-\(UUID().uuidString)") {
        self.boundary = boundary
        var head = ""
        for (name, value) in (form.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(form.field)\"; filename=\"\(Self.quotable(filename))\"\r\n"
        head += "Content-Type: \(Self.headerValue(fileContentType))\r\n\r\n"
        self.head = head
        tail = "\r\n--\(boundary)--\r\n"
    }

    /// A file name fit for a quoted header parameter: control characters, quotes and backslashes become `_`.
    package static func quotable(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == "\"" || $0 == "\\" ? "_" : Character($0) })
    }

    /// A content type fit for a part's header: one with a control character is no content type.
    private static func headerValue(_ contentType: String) -> String {
        contentType.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "application/octet-stream" : contentType
    }
}
