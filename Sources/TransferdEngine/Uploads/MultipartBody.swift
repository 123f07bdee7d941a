import Foundation
import NIOCore
import TransferdDomain

/// The framing of a `multipart/form-data` upload (RFC 7578) around a file streamed from disk: the text fields
/// and the file part's head go before the file's bytes, the closing boundary after, so that the whole length is
/// known before the first byte is sent.
package struct MultipartBody {
    package let boundary: String
    package let prefix: ByteBuffer
    package let suffix: ByteBuffer

    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The bytes the framing adds to the file's.
    package var length: Int64 { Int64(prefix.readableBytes + suffix.readableBytes) }

    /// Names and values were checked when the task was created: they hold no CR, LF or double quote.
    package init(form: MultipartForm, filename: String, fileContentType: String, boundary: String = "transferd-\(UUID().uuidString)") {
        self.boundary = boundary
        var head = ""
        for (name, value) in (form.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(form.field)\"; filename=\"\(Self.quotable(filename))\"\r\n"
        head += "Content-Type: \(fileContentType)\r\n\r\n"
        prefix = ByteBuffer(string: head)
        suffix = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
    }

    /// A file name fit for a quoted header parameter: CR, LF, quotes and backslashes become `_`.
    package static func quotable(_ name: String) -> String {
        String(name.map { "\r\n\"\\".contains($0) ? "_" : $0 })
    }
}
