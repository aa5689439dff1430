import EthereumPrimitives
import SignerKit

/// Where an action a bundle answers differs from the action an option lists, for errors: the method, else the
/// chain, else the first JSON path at which the params differ, with both values (abbreviated).
enum ActionDifference {
    /// `action[1] differs in params[1].message.value: option "1500000", bundle "2000000"`.
    static func describe(index: Int, option expected: WalletRpcAction, bundle signed: WalletRpcAction) -> String {
        let prefix = "action[\(index)] differs in"
        if expected.method != signed.method {
            return
                "\(prefix) method: option \(EchoedText.quoted(expected.method)), bundle \(EchoedText.quoted(signed.method))"
        }
        if expected.chainId != signed.chainId {
            return "\(prefix) chain: option \(expected.chainId), bundle \(signed.chainId)"
        }
        let left = try? JSONValue(parsing: expected.params)
        let right = try? JSONValue(parsing: signed.params)
        guard let left, let right, let (path, a, b) = firstDifference(left, right, path: "params") else {
            return
                "\(prefix) params: option \(EchoedText.quoted(expected.params)), bundle \(EchoedText.quoted(signed.params))"
        }
        return "\(prefix) \(path): option \(shown(a)), bundle \(shown(b))"
    }

    /// The first path at which `a` and `b` differ, and the values there (`nil`: absent on that side).
    private static func firstDifference(_ a: JSONValue, _ b: JSONValue, path: String)
        -> (String, JSONValue?, JSONValue?)?
    {
        guard a != b else { return nil }
        switch (a, b) {
        case (.object(let left), .object(let right)):
            let keys = left.keys + right.keys.filter { left[$0] == nil }
            for key in keys {
                let member = "\(path).\(EchoedText.abbreviated(key, limit: 40))"
                switch (left[key], right[key]) {
                case (let x?, let y?):
                    if let found = firstDifference(x, y, path: member) { return found }
                case (let x, let y): return (member, x, y)
                }
            }
            return nil
        case (.array(let left), .array(let right)):
            for i in 0..<max(left.count, right.count) {
                let element = "\(path)[\(i)]"
                guard i < left.count, i < right.count else {
                    return (element, i < left.count ? left[i] : nil, i < right.count ? right[i] : nil)
                }
                if let found = firstDifference(left[i], right[i], path: element) { return found }
            }
            return nil
        case (.string(let x), .string(let y)):
            // Typed data sent as JSON text: look inside.
            if let left = try? JSONValue(parsing: x), let right = try? JSONValue(parsing: y),
                left.isContainer, right.isContainer
            {
                return firstDifference(left, right, path: path + " (JSON text)") ?? (path, a, b)
            }
            return (path, a, b)
        default:
            return (path, a, b)
        }
    }

    /// A value as the error shows it: a 32-byte hex word (a nonce, a hash — or a key pasted where one goes) by
    /// its first and last four digits, enough to tell two apart and too little to give a key away; other values
    /// abbreviated; `absent` for none.
    private static func shown(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        if case .string(let text) = value, text.utf8.count == 66, (try? Bytes32(hex: text)) != nil {
            return "\"\(text.prefix(6))…\(text.suffix(4))\""
        }
        return EchoedText.abbreviated(value.serialized)
    }
}

extension JSONValue {
    /// Whether this is an object or an array.
    fileprivate var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
