import EthereumPrimitives
import Foundation

/// A message the hosted data-collection form posts to the wallet that shows it.
///
/// The form runs in a web view (or an iframe) and tells its host how it ended with `postMessage`:
/// `{"type":"IC_COMPLETE"}` once it has sent the answers itself (the wallet then confirms without
/// `collectedData`), or `{"type":"IC_ERROR","error":"…"}`. A host hands every message it receives to
/// ``accept(_:origin:formURL:)``, which keeps only these two, and only from the form's own origin: a
/// message from any other frame, of another type, or not JSON is ignored (`nil`).
public enum DataCollectionMessage: Sendable, Equatable {
    /// `IC_COMPLETE`: the form took the answers; continue the payment.
    case complete
    /// `IC_ERROR`: the form failed; the text it gave (as sent: quote it abbreviated).
    case error(String)

    /// The most bytes of message data read; longer data is ignored.
    public static let maximumLength = 16_384

    /// The message in `data` (the `postMessage` payload: a JSON object, or a string holding one), when it
    /// came from `origin` equal to the origin of `formURL` and is `IC_COMPLETE` or `IC_ERROR`; else `nil`.
    /// An `IC_ERROR` without a string `error` gets the text `no error text`.
    public static func accept(_ data: String, origin: String, formURL: URL) -> DataCollectionMessage? {
        guard let expected = DataCollection.origin(of: formURL), origin == expected,
            data.utf8.count <= maximumLength, case .object(let object)? = try? JSONValue(parsing: data)
        else { return nil }
        switch object["type"]?.stringValue {
        case "IC_COMPLETE": return .complete
        case "IC_ERROR": return .error(object["error"]?.stringValue ?? "no error text")
        default: return nil
        }
    }

    /// What a wallet makes of the message: continue (the page sent the data) or fail with its text.
    public var outcome: PayFlow.DataCollectionOutcome {
        switch self {
        case .complete: .submittedOnPage
        case .error(let text): .failed(text)
        }
    }
}

extension DataCollection {
    /// The origin a browser gives `url`'s page (`https://pay.walletconnect.com`,
    /// `http://127.0.0.1:8080`): scheme and host lower-cased, the port only when it is not the scheme's
    /// default; `nil` without a scheme or host. ``DataCollectionMessage`` compares message origins with it.
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), var host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        var text = "\(scheme)://\(host)"
        if let port = url.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            text += ":\(port)"
        }
        return text
    }
}
