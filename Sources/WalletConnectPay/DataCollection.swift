import EthereumPrimitives
import Foundation

/// The data-collection page a wallet shows before fetching an option's actions.
///
/// When an option carries `collectData.url`, the wallet opens that page (a webview) and continues
/// once the user has submitted it. ``url(for:prefill:theme:themeVariables:)`` builds the address:
/// the page's own query parameters are kept (its own `prefill`, `theme` and `themeVariables` too, unless the
/// wallet supplies a value for them), and SignerKit adds
/// - `prefill`: base64url (no padding) of the compact JSON object of the fields the wallet already
///   knows, limited to the fields the merchant requires (``CollectData/requiredFieldIds``);
/// - `theme`: `light` or `dark`;
/// - `themeVariables`: the caller's string, verbatim (percent-encoded only as a query value).
public enum DataCollection {
    /// The page's colour scheme.
    public enum Theme: String, Sendable, CaseIterable {
        /// Light.
        case light
        /// Dark.
        case dark
    }

    /// The page URL for `collectData`, or `nil` when it has no `url` or the URL is not absolute.
    ///
    /// `prefill` members whose key the merchant does not require (see ``CollectData/requiredFieldIds``)
    /// are dropped, so the page never receives personal data it did not demand; with no required fields
    /// nothing is sent. An empty prefill adds no parameter. The caller checks the page's host first
    /// (``PayClientConfiguration/allowsDataCollectionPage(_:)``; ``PayFlow`` does).
    public static func url(
        for collectData: CollectData, prefill: JSONObject = JSONObject(), theme: Theme? = nil,
        themeVariables: String? = nil
    ) -> URL? {
        guard let base = collectData.url else { return nil }
        let wanted = Set(collectData.requiredFieldIds)
        var known = JSONObject()
        for member in prefill.members where wanted.contains(member.key) {
            known[member.key] = member.value
        }
        return url(base: base, prefill: known, theme: theme, themeVariables: themeVariables)
    }

    /// Adds `prefill`, `theme` and `themeVariables` to `base`, keeping its other query parameters and its fragment;
    /// a parameter of `base` with one of these names is replaced only when the wallet gives a value for it (a
    /// non-empty prefill, a theme, theme variables).
    public static func url(base: String, prefill: JSONObject, theme: Theme?, themeVariables: String?) -> URL? {
        var head = Substring(base)
        var fragment: Substring?
        if let hash = head.firstIndex(of: "#") {
            fragment = head[head.index(after: hash)...]
            head = head[..<hash]
        }
        var query: Substring = ""
        if let question = head.firstIndex(of: "?") {
            query = head[head.index(after: question)...]
            head = head[..<question]
        }
        var replaced: Set<String> = []
        if !prefill.members.isEmpty { replaced.insert("prefill") }
        if theme != nil { replaced.insert("theme") }
        if themeVariables != nil { replaced.insert("themeVariables") }
        var parts = query.split(separator: "&", omittingEmptySubsequences: true).filter { pair in
            let name = pair.prefix { $0 != "=" }
            return !replaced.contains(String(name).removingPercentEncoding ?? String(name))
        }.map(String.init)
        if !prefill.members.isEmpty {
            parts.append("prefill=" + base64URL(Array(JSONValue.object(prefill).serialized.utf8)))
        }
        if let theme { parts.append("theme=" + theme.rawValue) }
        if let themeVariables { parts.append("themeVariables=" + PaymentLink.percentEncode(themeVariables)) }
        var text = String(head)
        if !parts.isEmpty { text += "?" + parts.joined(separator: "&") }
        if let fragment { text += "#" + fragment }
        guard let url = URL(string: text), url.scheme != nil else { return nil }
        return url
    }

    /// Base64url without padding (RFC 4648 §5).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url with or without padding; `nil` when malformed.
    public static func decodeBase64URL(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
