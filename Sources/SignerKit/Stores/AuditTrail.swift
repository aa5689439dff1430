import Foundation

/// Where the service writes one record per JSON-RPC call before it answers: the `AuditLog` file, or rows
/// in a shared database when several instances serve one deployment.
public protocol AuditTrail: Sendable {
    /// Stores one record per call of request `requestID`, durably.
    ///
    /// - Returns: whether every record was stored (the service withholds the answer otherwise).
    func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool
}

/// Several audit trails written as one (the audit rows of a shared database and a local file): a request is
/// answered only when every trail stored its records.
public struct AuditTrails: AuditTrail {
    /// The trails, written in order.
    public let trails: [any AuditTrail]

    /// Writes to each of `trails`.
    public init(_ trails: [any AuditTrail]) { self.trails = trails }

    /// Appends to every trail in order; stops at the first that fails.
    public func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool {
        for trail in trails where await !trail.append(records, requestID: requestID, at: time) { return false }
        return true
    }
}

/// Why an audit trail could not be opened: the trail and its cause (never a secret).
public struct AuditTrailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The trail and the cause.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
