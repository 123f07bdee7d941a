import Foundation
import Hummingbird

/// The per-request context of transferd's router: JSON in and out, with problems for every decoding failure.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// JSON request bodies larger than this are refused with 413.
    public var maxUploadSize: Int { 1 << 20 }
    public var requestDecoder: JSONRequestDecoder { JSONRequestDecoder() }
    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
}
