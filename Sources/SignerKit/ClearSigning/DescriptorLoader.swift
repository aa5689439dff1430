import EthereumPrimitives

extension ClearSigningDescriptor {
    /// Loads an ERC-7730 descriptor from its JSON text. `$ref`s to `$.display.definitions.*` and
    /// `$.metadata.enums.*` are resolved; nested field groups are flattened.
    ///
    /// - Throws: ``ClearSigningError`` naming the path of the first malformed part (missing context,
    ///   deployments that are not `{chainId, address}`, an unknown display format, a contract format key
    ///   that is not a signature of static ABI types, an unresolved `$ref`).
    public init(jsonText: String) throws(ClearSigningError) {
        let root: JSONValue
        do { root = try JSONValue(parsing: jsonText) } catch { throw .init(path: "", problem: "\(error)") }
        guard case .object(let object) = root else { throw .init(path: "", problem: "expected an object") }
        guard case .object(let context)? = object["context"] else {
            throw .init(path: "context", problem: "expected an object")
        }
        let isContract: Bool
        if let eip712 = context["eip712"] {
            guard context["contract"] == nil else {
                throw .init(path: "context", problem: "has both eip712 and contract")
            }
            let deployments = try Self.deployments(eip712["deployments"], path: "context.eip712.deployments")
            var domainName: String?
            if let domain = eip712["domain"] {
                guard case .object = domain else {
                    throw .init(path: "context.eip712.domain", problem: "expected an object")
                }
                domainName = domain["name"]?.stringValue
            }
            self.context = .eip712(deployments: deployments, domainName: domainName)
            isContract = false
        } else if let contract = context["contract"] {
            self.context = .contract(
                deployments: try Self.deployments(contract["deployments"], path: "context.contract.deployments"))
            isContract = true
        } else {
            throw .init(path: "context", problem: "expected an eip712 or contract context")
        }
        let metadata = object["metadata"]
        owner = metadata?["owner"]?.stringValue.map { EchoedText.abbreviated($0) }
        let enums = metadata?["enums"]
        let definitions = object["display"]?["definitions"]
        guard case .object(let formatsObject)? = object["display"]?["formats"] else {
            throw .init(path: "display.formats", problem: "expected an object")
        }
        var formats: [Format] = []
        for member in formatsObject.members {
            let path = "display.formats[\(EchoedText.abbreviated(member.key).debugDescription)]"
            guard case .object(let format) = member.value else {
                throw .init(path: path, problem: "expected an object")
            }
            var function: FunctionSignature?
            if isContract {
                do { function = try FunctionSignature(member.key) } catch {
                    throw .init(path: path, problem: error.problem)
                }
            }
            guard case .array(let fieldList)? = format["fields"] else {
                throw .init(path: path + ".fields", problem: "expected an array")
            }
            var fields: [Field] = []
            try Self.collect(
                fieldList, prefix: "", path: path + ".fields", definitions: definitions, enums: enums, into: &fields)
            let intent: String?
            switch format["intent"] {
            case .string(let text)?: intent = text
            case nil: intent = nil
            case .object(let o)?: intent = o.members.first.map { "\($0.key)" }
            default: throw .init(path: path + ".intent", problem: "expected a string")
            }
            formats.append(Format(key: member.key, intent: intent, fields: fields, function: function))
        }
        self.formats = formats
    }

    private static func deployments(_ value: JSONValue?, path: String) throws(ClearSigningError) -> [Deployment] {
        guard case .array(let list)? = value, !list.isEmpty else {
            throw .init(path: path, problem: "expected a non-empty array")
        }
        var result: [Deployment] = []
        for (i, entry) in list.enumerated() {
            let at = "\(path)[\(i)]"
            let chain: UInt256
            switch entry["chainId"] {
            case .number(let t)?, .string(let t)?:
                guard let parsed = try? UInt256(text: t) else {
                    throw .init(path: at + ".chainId", problem: "not a chain id")
                }
                chain = parsed
            default: throw .init(path: at + ".chainId", problem: "expected a number")
            }
            guard let text = entry["address"]?.stringValue else {
                throw .init(path: at + ".address", problem: "expected an address string")
            }
            do { result.append(Deployment(chainId: chain, address: try Address(text))) } catch {
                throw .init(path: at + ".address", problem: "\(error)")
            }
        }
        return result
    }

    private static func collect(
        _ list: [JSONValue], prefix: String, path: String, definitions: JSONValue?, enums: JSONValue?,
        into fields: inout [Field]
    ) throws(ClearSigningError) {
        for (i, entry) in list.enumerated() {
            let at = "\(path)[\(i)]"
            guard case .object(var field) = entry else { throw .init(path: at, problem: "expected an object") }
            if case .string(let ref)? = field["$ref"] {
                let name = ref.hasPrefix("$.display.definitions.") ? String(ref.dropFirst(22)) : ""
                guard case .object(let definition)? = definitions?[name] else {
                    throw .init(
                        path: at + ".$ref", problem: "\(EchoedText.abbreviated(ref)) is not a display definition")
                }
                for member in definition.members where field[member.key] == nil { field[member.key] = member.value }
            }
            guard case .string(let relative)? = field["path"] else {
                throw .init(path: at + ".path", problem: "expected a string")
            }
            let fullPath = prefix.isEmpty ? relative : prefix + "." + Self.stripRoot(relative)
            if case .array(let nested)? = field["fields"] {
                try collect(
                    nested, prefix: fullPath, path: at + ".fields", definitions: definitions, enums: enums,
                    into: &fields)
                continue
            }
            guard case .string(let label)? = field["label"] else {
                throw .init(path: at + ".label", problem: "expected a string")
            }
            let formatName = field["format"]?.stringValue ?? "raw"
            let format = try displayFormat(formatName, params: field["params"], enums: enums, path: at)
            fields.append(Field(path: fullPath, label: label, format: format))
        }
    }

    static func stripRoot(_ path: String) -> String { path.hasPrefix("#.") ? String(path.dropFirst(2)) : path }

    private static func displayFormat(_ name: String, params: JSONValue?, enums: JSONValue?, path: String)
        throws(ClearSigningError) -> DisplayFormat
    {
        switch name {
        case "raw": return .raw
        case "amount": return .amount
        case "date":
            let encoding = params?["encoding"]?.stringValue ?? "timestamp"
            guard encoding == "timestamp" || encoding == "blockheight" else {
                throw .init(path: path + ".params.encoding", problem: "expected timestamp or blockheight")
            }
            return .date(blockHeight: encoding == "blockheight")
        case "duration": return .duration
        case "addressName": return .addressName
        case "tokenAmount":
            var token: Address?
            if let text = params?["token"]?.stringValue {
                do { token = try Address(text) } catch {
                    throw .init(path: path + ".params.token", problem: "\(error)")
                }
            }
            var threshold: UInt256?
            if let text = params?["threshold"]?.stringValue ?? params?["threshold"].flatMap(numberText) {
                guard let parsed = try? UInt256(text: text) else {
                    throw .init(path: path + ".params.threshold", problem: "not an integer")
                }
                threshold = parsed
            }
            let tokenPath = params?["tokenPath"]?.stringValue
            guard tokenPath != nil || token != nil else {
                throw .init(path: path + ".params", problem: "tokenAmount needs tokenPath or token")
            }
            return .tokenAmount(
                tokenPath: tokenPath, token: token, threshold: threshold, message: params?["message"]?.stringValue)
        case "enum":
            guard let ref = params?["$ref"]?.stringValue, ref.hasPrefix("$.metadata.enums."),
                case .object(let table)? = enums?[String(ref.dropFirst(17))]
            else { throw .init(path: path + ".params.$ref", problem: "expected a $.metadata.enums.<name> reference") }
            var values: [String: String] = [:]
            for member in table.members {
                guard let text = member.value.stringValue else {
                    throw .init(path: "metadata.enums", problem: "enum values must be strings")
                }
                values[member.key] = text
            }
            return .enumeration(values)
        default:
            throw .init(
                path: path + ".format",
                problem: "unknown display format \(EchoedText.abbreviated(name).debugDescription)")
        }
    }

    private static func numberText(_ value: JSONValue) -> String? {
        if case .number(let text) = value { return text }
        return nil
    }
}
