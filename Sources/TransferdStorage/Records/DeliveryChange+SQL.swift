import TransferdDomain

extension DeliveryChange {
    /// The change as an `UPDATE deliveries` statement, which changes only the deliveries the change changes (of
    /// status `from`, and when it moves attempts earlier, those due later), and of them those `and` selects; its
    /// arguments come first, those of `and` after them. The statuses are constants: a partial index names `status`,
    /// and SQLite uses one only for a query that repeats its condition.
    func update(where and: String) -> (sql: String, arguments: SQLArguments) {
        var (assignments, conditions) = (status == from ? [] : ["status = \(status.sqlConstant)"], ["status = \(from.sqlConstant)"])
        var (assigned, conditioned) = (SQLArguments(), SQLArguments())
        if let attemptCount {
            assignments.append("attempt_count = ?")
            assigned.append(attemptCount)
        }
        switch nextAttempt {
        case .at(let date):
            assignments.append("next_attempt_at = ?")
            assigned.append(StoredDate.text(date))
        case .atTheLatest(let date):
            assignments.append("next_attempt_at = ?")
            assigned.append(StoredDate.text(date))
            conditions.append("next_attempt_at > ?")
            conditioned.append(StoredDate.text(date))
        case nil: break
        }
        if let completedAt {
            assignments.append("completed_at = ?")
            assigned.append(StoredDate.text(orNil: completedAt))
        }
        if let lastError {
            assignments.append("last_error = ?")
            assigned.append(lastError)
        }
        let sql = "UPDATE deliveries SET \(assignments.joined(separator: ", ")) WHERE \((conditions + [and]).joined(separator: " AND "))"
        return (sql, assigned + conditioned)
    }
}
