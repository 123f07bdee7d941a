import TransferdDomain

/// The body of `POST …/tasks/{n}/cancel` (optional).
struct CancelRequest: Decodable {
    /// cancel(byProducingResumeData:): keep the partial file and answer with a resume data token.
    var produceResumeData: Bool?
}
