import Hummingbird
import TransferdDomain

/// A task is answered as its representation, in JSON.
extension TaskRepresentation: ResponseEncodable {}
