import EthereumPrimitives

extension ClearSigningDescriptor {
    /// Loads an ERC-7730 descriptor from its JSON text. `$ref`s to `$.display.definitions.*` and
    /// `$.metadata.enums.*` are resolved; nested field groups are flattened.
    ///
    /// - Throws: ``ClearSigningError`` naming the path of the first malformed part (missing context,
    ///   deployments that are not `{chainId, address}`, an unknown display format, a contract format key
    ///   that is not a signature of static ABI types, an unresolved `$ref`).
    public init(jsonText: String) throws(ClearSigningError) {
        let root = try Reader(parsing: jsonText)
        try root.object()
        let context = root["context"]
        let contextObject = try context.object()
        let isContract: Bool
        if contextObject["eip712"] != nil {
            guard contextObject["contract"] == nil else { throw context.fail("has both eip712 and contract") }
            let eip712 = context["eip712"]
            let deployments = try Self.deployments(eip712["deployments"])
            let domainName = try eip712["domain"].ifPresent.map { (domain) throws(ClearSigningError) in
                try domain.object()["name"]?.stringValue
            }
            self.context = .eip712(deployments: deployments, domainName: domainName ?? nil)
            isContract = false
        } else if contextObject["contract"] != nil {
            self.context = .contract(deployments: try Self.deployments(context["contract"]["deployments"]))
            isContract = true
        } else {
            throw context.fail("expected an eip712 or contract context")
        }
        owner = root["metadata"]["owner"].value?.stringValue.map { EchoedText.abbreviated($0) }
        let enums = root["metadata"]["enums"]
        let definitions = root["display"]["definitions"]
        let formatsReader = root["display"]["formats"]
        var formats: [Format] = []
        for member in try formatsReader.object().members {
            let format = Reader(
                member.value, at: "display.formats[\(EchoedText.abbreviated(member.key).debugDescription)]")
            try format.object()
            var function: FunctionSignature?
            if isContract {
                do { function = try FunctionSignature(member.key) } catch { throw format.fail(error.problem) }
            }
            guard case .array? = format["fields"].value else { throw format["fields"].fail("expected an array") }
            var fields: [Field] = []
            try Self.collect(format["fields"], prefix: "", definitions: definitions, enums: enums, into: &fields)
            let intent: String?
            switch format["intent"].value {
            case .string(let text)?: intent = text
            case nil: intent = nil
            case .object(let o)?: intent = o.members.first.map { "\($0.key)" }
            default: throw format["intent"].fail("expected a string")
            }
            formats.append(Format(key: member.key, intent: intent, fields: fields, function: function))
        }
        self.formats = formats
    }

    /// A descriptor's reader.
    typealias Reader = JSONReader<ClearSigningError>

    private static func deployments(_ list: Reader) throws(ClearSigningError) -> [Deployment] {
        guard case .array(let items)? = list.value, !items.isEmpty else {
            throw list.fail("expected a non-empty array")
        }
        return try list.elements().map { (entry) throws(ClearSigningError) in
            let chain: UInt256
            switch entry["chainId"].value {
            case .number(let t)?, .string(let t)?:
                guard let parsed = try? UInt256(text: t) else { throw entry["chainId"].fail("not a chain id") }
                chain = parsed
            default: throw entry["chainId"].fail("expected a number")
            }
            return Deployment(chainId: chain, address: try entry["address"].address())
        }
    }

    private static func collect(
        _ list: Reader, prefix: String, definitions: Reader, enums: Reader, into fields: inout [Field]
    ) throws(ClearSigningError) {
        for item in try list.elements() {
            guard case .object(var field) = item.value else { throw item.fail("expected an object") }
            if case .string(let ref)? = field["$ref"] {
                let name = ref.hasPrefix("$.display.definitions.") ? String(ref.dropFirst(22)) : ""
                guard case .object(let definition)? = definitions[name].value else {
                    throw item["$ref"].fail("\(EchoedText.abbreviated(ref)) is not a display definition")
                }
                for member in definition.members where field[member.key] == nil { field[member.key] = member.value }
            }
            let merged = Reader(.object(field), at: item.path)
            guard case .string(let relative)? = field["path"] else { throw merged["path"].fail("expected a string") }
            let fullPath = prefix.isEmpty ? relative : prefix + "." + Self.stripRoot(relative)
            if case .array? = field["fields"] {
                try collect(merged["fields"], prefix: fullPath, definitions: definitions, enums: enums, into: &fields)
                continue
            }
            guard case .string(let label)? = field["label"] else { throw merged["label"].fail("expected a string") }
            let formatName = field["format"]?.stringValue ?? "raw"
            let format = try displayFormat(formatName, field: merged, enums: enums)
            fields.append(Field(path: fullPath, label: label, format: format))
        }
    }

    static func stripRoot(_ path: String) -> String { path.hasPrefix("#.") ? String(path.dropFirst(2)) : path }

    private static func displayFormat(_ name: String, field: Reader, enums: Reader) throws(ClearSigningError)
        -> DisplayFormat
    {
        let params = field["params"]
        switch name {
        case "raw": return .raw
        case "amount": return .amount
        case "date":
            let encoding = params["encoding"].value?.stringValue ?? "timestamp"
            guard encoding == "timestamp" || encoding == "blockheight" else {
                throw params["encoding"].fail("expected timestamp or blockheight")
            }
            return .date(blockHeight: encoding == "blockheight")
        case "duration": return .duration
        case "addressName": return .addressName
        case "tokenAmount":
            let token = try params["token"].value?.stringValue.map { (_) throws(ClearSigningError) in
                try params["token"].address()
            }
            var threshold: UInt256?
            if let text = params["threshold"].value.flatMap({ $0.stringValue ?? numberText($0) }) {
                guard let parsed = try? UInt256(text: text) else { throw params["threshold"].fail("not an integer") }
                threshold = parsed
            }
            let tokenPath = params["tokenPath"].value?.stringValue
            guard tokenPath != nil || token != nil else { throw params.fail("tokenAmount needs tokenPath or token") }
            return .tokenAmount(
                tokenPath: tokenPath, token: token, threshold: threshold,
                message: params["message"].value?.stringValue)
        case "enum":
            guard let ref = params["$ref"].value?.stringValue, ref.hasPrefix("$.metadata.enums."),
                case .object(let table)? = enums[String(ref.dropFirst(17))].value
            else { throw params["$ref"].fail("expected a $.metadata.enums.<name> reference") }
            var values: [String: String] = [:]
            for member in table.members {
                guard let text = member.value.stringValue else {
                    throw Reader(nil, at: "metadata.enums").fail("enum values must be strings")
                }
                values[member.key] = text
            }
            return .enumeration(values)
        default:
            throw field["format"].fail("unknown display format \(EchoedText.abbreviated(name).debugDescription)")
        }
    }

    private static func numberText(_ value: JSONValue) -> String? {
        if case .number(let text) = value { return text }
        return nil
    }
}

extension ClearSigningError: LocatedJSONError {}
