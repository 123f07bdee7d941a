/// Why an attempt that meant to continue a partial download starts again from byte 0
/// (`task.resumed_at_offset`'s `restartReason`).
package enum RestartReason: String, Codable, Sendable {
    /// The origin answered the range request with the whole resource (`200`).
    case rangeIgnored
    /// The resource changed since the partial bytes arrived (`If-Range` did not match).
    case validatorChanged
    /// The origin refused the range (`416`): the resource shrank.
    case rangeNotSatisfiable
    /// The partial file is shorter than its checkpoint or gone.
    case partialFileMissing
}
