import Crypto
import Foundation

/// What NSURLSession calls resume data: an opaque token from which a new task continues a download that was
/// cancelled or failed, instead of starting again from byte 0.
///
/// The token is `v1.<payload>.<mac>`: the base64 JSON of this value and its HMAC-SHA256 under the installation's
/// own key, so a token altered, made up, or issued by another installation is refused before anything is read.
struct ResumeData: Codable, Sendable, Equatable {
    /// The session the token was issued in; it is accepted there only.
    var sessionID: Int64
    /// The task whose partial file holds the bytes.
    var taskID: Int64
    var url: String
    /// Bytes of the partial file that the new task keeps.
    var bytes: Int64
    /// The total size, -1 when unknown.
    var expectedBytes: Int64
    var validator: ResumeValidator

    private static let prefix = "v1."

    /// Issues and checks tokens with the installation's key (see `service_keys`).
    struct Signer: Sendable {
        let key: SymmetricKey

        func token(for resumeData: ResumeData) throws -> String {
            let payload = try JSONEncoder().encode(resumeData)
            let mac = Data(HMAC<SHA256>.authenticationCode(for: payload, using: key))
            return ResumeData.prefix + payload.base64EncodedString() + "." + mac.base64EncodedString()
        }

        /// The token's contents, or a 400 problem that says what is wrong with it.
        func decode(_ token: String) throws(Problem) -> ResumeData {
            guard token.hasPrefix(ResumeData.prefix) else {
                throw .invalidField("resumeData", "is not resume data of a version this service understands")
            }
            let parts = token.dropFirst(ResumeData.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let payload = Data(base64Encoded: String(parts[0])), let mac = Data(base64Encoded: String(parts[1]))
            else {
                throw .invalidField("resumeData", "is malformed")
            }
            guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key) else {
                throw .invalidField("resumeData", "was not issued by this service or has been altered")
            }
            guard let resumeData = try? JSONDecoder().decode(ResumeData.self, from: payload) else {
                throw .invalidField("resumeData", "is malformed")
            }
            return resumeData
        }
    }
}
