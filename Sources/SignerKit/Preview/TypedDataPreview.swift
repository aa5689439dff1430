import EIP712
import EthereumPrimitives

/// Decodes EIP-2612 `Permit`, Permit2 and ERC-3009 typed data; any other typed data becomes a field tree.
enum TypedDataPreview {
    typealias Shapes = TypedDataShapes

    static func preview(_ typedData: TypedData, chainId: UInt256, base: SigningPreview, tokens: TokenRegistry)
        -> SigningPreview
    {
        var preview = base
        preview.kind = .typedData
        let verifyingContract = typedData.domain["verifyingContract"]?.stringValue.flatMap { try? Address($0) }
        preview.contract = verifyingContract
        let primary = typedData.primaryType
        // Other typed data (the common case of large documents) is walked in place, never materialised.
        guard recognisedPrimaryTypes.contains(primary) else {
            preview.fields = FieldTree.fields(of: typedData.message, prefix: primary)
            return preview
        }
        let types = typedData.types.value
        let message = typedData.message.value
        func amount(_ value: UInt256, _ token: Address) -> TokenAmount {
            tokens.amount(value, chainId: chainId, token: token)
        }
        switch primary {
        case "Permit" where Shapes.matches(primary, Shapes.permit, in: types):
            guard let token = verifyingContract, let value = uint(message["value"]) else { break }
            preview.kind = .permit
            preview.owner = address(message["owner"])
            preview.spender = address(message["spender"])
            preview.tokens = [amount(value, token)]
            preview.deadline = uint(message["deadline"])
        case "Permit" where Shapes.matches(primary, Shapes.daiPermit, in: types):
            guard let token = verifyingContract, case .bool(let allowed)? = message["allowed"] else { break }
            preview.kind = .permit
            preview.owner = address(message["holder"])
            preview.spender = address(message["spender"])
            preview.tokens = [amount(allowed ? .max : .zero, token)]
            // DAI: expiry 0 means the permit never expires.
            let expiry = uint(message["expiry"])
            preview.deadline = expiry?.isZero == true ? .max : expiry
        case "PermitSingle"
        where Shapes.matches(primary, Shapes.permitSingle, in: types)
            && Shapes.matches("PermitDetails", Shapes.permitDetails, in: types):
            guard let details = message["details"], let detail = permitDetails(details, amount) else { break }
            preview.kind = .permit2Single
            preview.spender = address(message["spender"])
            preview.tokens = [detail.amount]
            preview.deadline = latest(detail.expiration, uint(message["sigDeadline"]))
        case "PermitBatch"
        where Shapes.matches(primary, Shapes.permitBatch, in: types)
            && Shapes.matches("PermitDetails", Shapes.permitDetails, in: types):
            guard case .array(let list)? = message["details"], !list.isEmpty else { break }
            let details = list.compactMap { permitDetails($0, amount) }
            guard details.count == list.count else { break }
            preview.kind = .permit2Batch
            preview.spender = address(message["spender"])
            preview.tokens = details.map(\.amount)
            preview.deadline = details.reduce(uint(message["sigDeadline"])) { latest($0, $1.expiration) }
        case "PermitTransferFrom", "PermitWitnessTransferFrom", "PermitBatchTransferFrom",
            "PermitBatchWitnessTransferFrom":
            guard Shapes.matches("TokenPermissions", Shapes.tokenPermissions, in: types),
                let fields = Shapes.fields(of: primary, in: types)
            else { break }
            let batch = primary.hasPrefix("PermitBatch")
            let core = batch ? Shapes.permitBatchTransferFrom : Shapes.permitTransferFrom
            let witness = primary.hasSuffix("WitnessTransferFrom")
            // The witness variants append exactly one field of a struct type declared in `types`.
            guard fields.count == core.count + (witness ? 1 : 0),
                zip(fields, core).allSatisfy({ $0.name == $1.name && $0.type == $1.type })
            else { break }
            if witness, let last = fields.last, Shapes.fields(of: last.type, in: types) == nil { break }
            let permitted: [JSONValue]
            if batch {
                guard case .array(let list)? = message["permitted"], !list.isEmpty else { break }
                permitted = list
            } else {
                guard let one = message["permitted"] else { break }
                permitted = [one]
            }
            let amounts = permitted.compactMap { entry -> TokenAmount? in
                guard let token = address(entry["token"]), let value = uint(entry["amount"]) else { return nil }
                return amount(value, token)
            }
            guard amounts.count == permitted.count else { break }
            preview.kind =
                witness ? .permit2WitnessTransfer : batch ? .permit2BatchTransfer : .permit2Transfer
            preview.spender = address(message["spender"])
            preview.tokens = amounts
            preview.deadline = uint(message["deadline"])
            if witness, let last = fields.last, let node = typedData.message[last.name] {
                preview.fields = FieldTree.fields(of: node, prefix: last.name)
            }
        case "TransferWithAuthorization" where Shapes.matches(primary, Shapes.authorization, in: types),
            "ReceiveWithAuthorization" where Shapes.matches(primary, Shapes.authorization, in: types):
            guard let token = verifyingContract, let value = uint(message["value"]) else { break }
            preview.kind = primary == "TransferWithAuthorization" ? .erc3009Transfer : .erc3009Receive
            preview.owner = address(message["from"])
            preview.recipient = address(message["to"])
            preview.tokens = [amount(value, token)]
            preview.validAfter = uint(message["validAfter"])
            preview.deadline = uint(message["validBefore"])
        case "CancelAuthorization" where Shapes.matches(primary, Shapes.cancelAuthorization, in: types):
            preview.kind = .erc3009Cancel
            preview.owner = address(message["authorizer"])
        default: break
        }
        if preview.kind == .typedData { preview.fields = FieldTree.fields(of: typedData.message, prefix: primary) }
        return preview
    }

    /// The primary types a standard shape may have; any other is a field tree at once.
    static let recognisedPrimaryTypes: Set<String> = [
        "Permit", "PermitSingle", "PermitBatch", "PermitTransferFrom", "PermitWitnessTransferFrom",
        "PermitBatchTransferFrom", "PermitBatchWitnessTransferFrom", "TransferWithAuthorization",
        "ReceiveWithAuthorization", "CancelAuthorization",
    ]

    private struct Detail {
        let amount: TokenAmount
        let expiration: UInt256?
    }

    private static func permitDetails(_ value: JSONValue, _ amount: (UInt256, Address) -> TokenAmount) -> Detail? {
        guard let token = address(value["token"]), let raw = uint(value["amount"]) else { return nil }
        return Detail(amount: amount(raw, token), expiration: uint(value["expiration"]))
    }

    private static func latest(_ a: UInt256?, _ b: UInt256?) -> UInt256? {
        switch (a, b) {
        case (let a?, let b?): max(a, b)
        case (let a?, nil): a
        case (nil, let b): b
        }
    }

    static func address(_ value: JSONValue?) -> Address? { value?.stringValue.flatMap { try? Address($0) } }

    /// A uint field (number, decimal or hex string); the typed data was validated before the preview runs.
    static func uint(_ value: JSONValue?) -> UInt256? {
        switch value {
        case .number(let text)?, .string(let text)?: try? UInt256(text: text)
        default: nil
        }
    }
}

/// Flattens a typed-data message into labelled leaves (`Mail.from.wallet = 0x…`), bounded in depth and count,
/// reading the parsed document in place.
enum FieldTree {
    /// The most leaves listed; more are summarised by one `…` field.
    static let maximumFields = 64

    static func fields(of root: JSONNode, prefix: String) -> [PreviewField] {
        var fields: [PreviewField] = []
        var omitted = 0
        func walk(_ node: JSONNode, _ path: String, depth: Int) {
            if fields.count >= maximumFields {
                omitted += 1
                return
            }
            switch node.kind {
            case .object where depth < 8:
                for member in node.members {
                    walk(member.value, path + "." + (member.key.stringValue ?? ""), depth: depth + 1)
                }
            case .array where depth < 8:
                for (i, element) in node.elements.enumerated() { walk(element, path + "[\(i)]", depth: depth + 1) }
            default:
                fields.append(PreviewField(label: EchoedText.abbreviated(path), value: leaf(node)))
            }
        }
        walk(root, prefix, depth: 0)
        if omitted > 0 { fields.append(PreviewField(label: "…", value: "\(omitted) more fields")) }
        return fields
    }

    static func leaf(_ node: JSONNode) -> String {
        switch node.kind {
        case .string: MessagePreview.quoted(node.stringValue ?? "")
        case .number: EchoedText.abbreviated(node.numberText ?? "")
        case .bool: node.boolValue == true ? "true" : "false"
        case .null: "null"
        case .array: "[\(node.count) elements]"
        case .object: "{\(node.count) fields}"
        }
    }

    static func leaf(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): MessagePreview.quoted(text)
        case .number(let text): EchoedText.abbreviated(text)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array(let list): "[\(list.count) elements]"
        case .object(let object): "{\(object.count) fields}"
        }
    }
}
