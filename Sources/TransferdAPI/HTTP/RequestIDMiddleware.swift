import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TransferdDomain

/// Every response carries `X-Request-Id`: the request's own when it sent a usable one (1–200 visible ASCII
/// characters), a new one otherwise. The id, and an incoming W3C `traceparent`, join the metadata of every log line
/// the request causes; the request itself is logged at `debug`. The `traceparent` also goes with the events the
/// request writes (`Trace`), to their webhook deliveries: the request's span's when tracing is on (Hummingbird's
/// `TracingMiddleware`, just outside this one), else the header's. The outermost middleware but for tracing, so that
/// problems carry the id too.
struct RequestIDMiddleware: RouterMiddleware {
    static let header = HTTPField.Name("X-Request-Id")!
    static let traceparent = HTTPField.Name("traceparent")!

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let id = request.headers[Self.header].flatMap(Self.usable) ?? UUID().uuidString.lowercased()
        let traceparent = Trace.traceparent() ?? request.headers[Self.traceparent].flatMap(Self.usable)
        do {
            var response = try await RequestLogScope.$current.withValue(RequestLogScope(requestID: id, traceparent: traceparent)) {
                context.logger.debug("request", metadata: ["method": .string(request.method.rawValue), "path": .string(request.uri.path)])
                guard let traceparent else { return try await next(request, context) }
                return try await Trace.$parent.withValue(traceparent) { try await next(request, context) }
            }
            response.headers[Self.header] = id
            return response
        } catch var problem as Problem {
            problem.headers[Self.header] = id
            throw problem
        }
    }

    /// The value when it can be logged and echoed as it is.
    private static func usable(_ value: String) -> String? {
        (1...200).contains(value.utf8.count) && value.utf8.allSatisfy { (0x21...0x7e).contains($0) } ? value : nil
    }
}
