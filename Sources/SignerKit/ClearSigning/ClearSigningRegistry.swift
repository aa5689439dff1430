import EIP712
import EthereumPrimitives

/// What a descriptor rendered: its intent and the labelled values.
public struct ClearSigningRendering: Sendable, Hashable {
    /// The intent (`Send`), or the format key when the descriptor gives none.
    public let intent: String
    /// The shown fields, in the descriptor's order.
    public let fields: [PreviewField]
}

/// The ERC-7730 descriptors a ``SigningPreviewer`` renders with. The first descriptor whose context
/// matches (chain and contract in its deployments, the typed data's primary type or the call's selector
/// among its formats) renders the action.
public struct ClearSigningRegistry: Sendable {
    /// The descriptors, in the order they are tried.
    public private(set) var descriptors: [ClearSigningDescriptor]

    /// A registry of `descriptors`.
    public init(_ descriptors: [ClearSigningDescriptor] = []) { self.descriptors = descriptors }

    /// This registry with one more descriptor loaded from JSON text.
    public func adding(jsonText: String) throws(ClearSigningError) -> ClearSigningRegistry {
        var copy = self
        copy.descriptors.append(try ClearSigningDescriptor(jsonText: jsonText))
        return copy
    }

    /// Renders typed data with the first matching `eip712` descriptor.
    public func render(typedData: TypedData, chainId: UInt256, tokens: TokenRegistry) -> ClearSigningRendering? {
        guard !descriptors.isEmpty else { return nil }
        let domain = typedData.domain.value
        guard let contract = domain["verifyingContract"]?.stringValue.flatMap({ try? Address($0) }) else { return nil }
        let types = typedData.types.value
        let ownType = TypedDataShapes.fields(of: typedData.primaryType, in: types).map {
            typedData.primaryType + "(" + $0.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")"
        }
        for descriptor in descriptors {
            guard case .eip712(let deployments, let domainName) = descriptor.context,
                deployments.contains(where: { $0.chainId == chainId && $0.address == contract })
            else { continue }
            if let domainName, domain["name"]?.stringValue != domainName { continue }
            guard
                let format = descriptor.formats.first(where: {
                    $0.key == typedData.primaryType || $0.key == ownType
                        || $0.key.hasPrefix(typedData.primaryType + "(") && ownType.map($0.key.hasPrefix) == true
                })
            else { continue }
            let container = JSONValue.object(
                JSONObject(["to": .string(contract.checksummed), "chainId": .number(chainId.decimalString)]))
            return render(
                format, values: typedData.message.value, container: container, chainId: chainId, tokens: tokens)
        }
        return nil
    }

    /// Renders a contract call with the first matching `contract` descriptor.
    public func render(
        calldata: [UInt8], to: Address, value: UInt256, from: Address, chainId: UInt256, tokens: TokenRegistry
    ) -> ClearSigningRendering? {
        guard !descriptors.isEmpty else { return nil }
        for descriptor in descriptors {
            guard case .contract(let deployments) = descriptor.context,
                deployments.contains(where: { $0.chainId == chainId && $0.address == to })
            else { continue }
            for format in descriptor.formats {
                guard let function = format.function, let arguments = function.decode(calldata) else { continue }
                let container = JSONValue.object(
                    JSONObject([
                        "to": .string(to.checksummed), "from": .string(from.checksummed),
                        "value": .number(value.decimalString), "chainId": .number(chainId.decimalString),
                    ]))
                return render(format, values: arguments, container: container, chainId: chainId, tokens: tokens)
            }
        }
        return nil
    }

    private func render(
        _ format: ClearSigningDescriptor.Format, values: JSONValue, container: JSONValue, chainId: UInt256,
        tokens: TokenRegistry
    ) -> ClearSigningRendering {
        func resolve(_ path: String) -> JSONValue? {
            if path.hasPrefix("@.") { return container[String(path.dropFirst(2))] }
            var value: JSONValue? = values
            for key in ClearSigningDescriptor.stripRoot(path).split(separator: ".") {
                if case .array(let list)? = value, let i = Int(key) {
                    value = i < list.count ? list[i] : nil
                } else {
                    value = value?[String(key)]
                }
            }
            return value
        }
        let fields = format.fields.map { field -> PreviewField in
            guard let value = resolve(field.path) else { return PreviewField(label: field.label, value: "(absent)") }
            return PreviewField(
                label: EchoedText.abbreviated(field.label),
                value: Self.show(value, field.format, chainId: chainId, tokens: tokens, resolve: resolve))
        }
        return ClearSigningRendering(
            intent: format.intent.map { EchoedText.abbreviated($0) } ?? format.key, fields: fields)
    }

    private static let nativeSymbols: [UInt64: String] = [
        137: "POL", 56: "BNB", 100: "xDAI", 43114: "AVAX", 42220: "CELO",
    ]

    static func show(
        _ value: JSONValue, _ format: ClearSigningDescriptor.DisplayFormat, chainId: UInt256, tokens: TokenRegistry,
        resolve: (String) -> JSONValue?
    ) -> String {
        let number = TypedDataPreview.uint(value)
        switch format {
        case .raw: return FieldTree.leaf(value)
        case .amount:
            guard let number else { return FieldTree.leaf(value) }
            let symbol = chainId.uint64.flatMap { nativeSymbols[$0] } ?? "ETH"
            return DecimalFormat.string(number, decimals: 18) + " " + symbol
        case .tokenAmount(let tokenPath, let constant, let threshold, let message):
            guard let number else { return FieldTree.leaf(value) }
            let token = constant ?? tokenPath.flatMap { TypedDataPreview.address(resolve($0)) }
            let known = token.flatMap { tokens.token(chainId: chainId, address: $0) }
            if number >= (threshold ?? .max) || SigningPreviewer.isUnlimited(number) {
                return (message.map { EchoedText.abbreviated($0) } ?? "Unlimited") + " "
                    + (known?.symbol ?? token?.checksummed ?? "")
            }
            if let known { return known.format(number) }
            return "\(number.decimalString) (base units) of \(token?.checksummed ?? "an unknown token")"
        case .date(let blockHeight):
            guard let number else { return FieldTree.leaf(value) }
            return blockHeight ? "block \(number.decimalString)" : SigningPreview.utcDate(number)
        case .duration:
            guard let seconds = number?.uint64 else { return FieldTree.leaf(value) }
            let parts = [
                (seconds / 86400, "d"), (seconds / 3600 % 24, "h"), (seconds / 60 % 60, "m"), (seconds % 60, "s"),
            ]
            let shown = parts.filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }.joined(separator: " ")
            return shown.isEmpty ? "0s" : shown
        case .addressName:
            guard let address = TypedDataPreview.address(value) else { return FieldTree.leaf(value) }
            if let known = tokens.token(chainId: chainId, address: address) {
                return "\(address.checksummed) (\(known.symbol))"
            }
            return address.checksummed
        case .enumeration(let table):
            let key = number?.decimalString ?? value.stringValue ?? ""
            return table[key].map { EchoedText.abbreviated($0) } ?? FieldTree.leaf(value)
        }
    }
}
