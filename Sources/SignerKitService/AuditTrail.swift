import Foundation

/// Where the service writes one record per JSON-RPC call before it answers: the ``AuditLog`` file, or rows
/// in a shared database when several instances serve one deployment.
public protocol AuditTrail: Sendable {
    /// Stores one record per call of request `requestID`, durably.
    ///
    /// - Returns: whether every record was stored (the service withholds the answer otherwise).
    func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool
}
