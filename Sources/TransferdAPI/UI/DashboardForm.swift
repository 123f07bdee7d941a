import Foundation
import Hummingbird
import TransferdDomain

/// A dashboard form's fields (`application/x-www-form-urlencoded`, at most 64 KiB), read with Hummingbird's
/// `URLEncodedFormDecoder`. A form that changes state carries the session's CSRF token in its `csrf` field.
enum DashboardForm {
    /// The fields of a form that changes state, once its `csrf` field is found to be the session's token.
    static func read<Form: Decodable>(_ type: Form.Type, from request: Request, signedIn: DashboardSignIn) async throws -> Form {
        let text = try await body(of: request)
        let token = (try? URLEncodedFormDecoder().decode(CSRFField.self, from: text))?.csrf ?? ""
        guard constantTimeEquals(token, signedIn.session.csrfToken) else {
            throw Problem(
                .csrf,
                detail: "The form was not sent by this dashboard (its CSRF token is missing or wrong)."
            )
        }
        return try decode(type, text)
    }

    /// The fields of a form sent without a session (signing in).
    static func read<Form: Decodable>(_ type: Form.Type, from request: Request) async throws -> Form {
        try decode(type, try await body(of: request))
    }

    private static func body(of request: Request) async throws -> String {
        String(buffer: try await request.body.collect(upTo: 64 << 10))
    }

    private static func decode<Form: Decodable>(_ type: Form.Type, _ text: String) throws -> Form {
        do {
            return try URLEncodedFormDecoder().decode(type, from: text)
        } catch {
            throw Problem.badRequest("The form's fields could not be read; send them as application/x-www-form-urlencoded.")
        }
    }

    private struct CSRFField: Decodable {
        var csrf: String?
    }

    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
