import HTTPTypes

extension DiskSpace {
    /// 507 when new work would eat into the floor.
    func refuseNewWorkWhenLow() throws(Problem) {
        guard !isBelowFloor else {
            throw Problem(
                status: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"),
                slug: "insufficient-storage",
                title: "Insufficient storage",
                detail:
                    "The data directory has \(availableBytes) bytes free, below the \(minimumFreeBytes) this service keeps free; no new work is taken until space is freed."
            )
        }
    }
}
