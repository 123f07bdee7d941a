/// The W3C `traceparent` of the request that the current work serves, if it came with one: the writes it causes
/// take it along (`Repositories.traceparent`), so that the webhook deliveries of the events they append carry it on.
package enum Trace {
    @TaskLocal package static var parent: String?
}
