import EthereumPrimitives
import SignerKit

/// A payment's lifecycle status (`requires_action` → `processing` → `succeeded` | `failed` | `expired` | `cancelled`).
public enum PaymentStatus: Sendable, Hashable, CustomStringConvertible {
    /// The payment waits for the wallet (options, signatures).
    case requiresAction
    /// Confirmed; settlement in progress.
    case processing
    /// Settled.
    case succeeded
    /// Settlement failed.
    case failed
    /// The payment expired before it was completed.
    case expired
    /// The merchant cancelled it.
    case cancelled
    /// A status this client does not know (kept verbatim).
    case unknown(String)

    /// Reads the wire value.
    public init(wireValue: String) {
        switch wireValue {
        case "requires_action": self = .requiresAction
        case "processing": self = .processing
        case "succeeded": self = .succeeded
        case "failed": self = .failed
        case "expired": self = .expired
        case "cancelled": self = .cancelled
        default: self = .unknown(wireValue)
        }
    }

    /// The wire value (`requires_action`, …).
    public var wireValue: String {
        switch self {
        case .requiresAction: "requires_action"
        case .processing: "processing"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .expired: "expired"
        case .cancelled: "cancelled"
        case .unknown(let text): text
        }
    }

    /// Whether no further change is expected (`succeeded`, `failed`, `expired`, `cancelled`).
    public var isFinal: Bool {
        switch self {
        case .succeeded, .failed, .expired, .cancelled: true
        case .requiresAction, .processing, .unknown: false
        }
    }

    /// The wire value.
    public var description: String { wireValue }
}

/// How an amount is shown: `{"assetSymbol","assetName","decimals","iconUrl"?,"networkName"?,"networkIconUrl"?}`.
public struct AmountDisplay: Sendable, Equatable {
    /// Ticker, e.g. `USDC`.
    public var assetSymbol: String
    /// Full name, e.g. `USD Coin`.
    public var assetName: String
    /// Minor-unit decimals (6 for USDC, 2 for USD).
    public var decimals: Int
    /// Asset icon.
    public var iconUrl: String?
    /// Network name, e.g. `Base`.
    public var networkName: String?
    /// Network icon.
    public var networkIconUrl: String?

    /// Builds a display block.
    public init(
        assetSymbol: String, assetName: String, decimals: Int, iconUrl: String? = nil, networkName: String? = nil,
        networkIconUrl: String? = nil
    ) {
        self.assetSymbol = assetSymbol
        self.assetName = assetName
        self.decimals = decimals
        self.iconUrl = iconUrl
        self.networkName = networkName
        self.networkIconUrl = networkIconUrl
    }

    init(json: JSONValue?, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        assetSymbol = try PayJSON.string(r["assetSymbol"], path + ".assetSymbol")
        assetName = try PayJSON.string(r["assetName"], path + ".assetName")
        let decimals = try PayJSON.integer(r["decimals"], path + ".decimals")
        guard (0...77).contains(decimals) else {
            throw .invalidResponse("\(path).decimals: \(decimals) is out of range")
        }
        self.decimals = Int(decimals)
        iconUrl = try PayJSON.optionalString(r["iconUrl"], path + ".iconUrl")
        networkName = try PayJSON.optionalString(r["networkName"], path + ".networkName")
        networkIconUrl = try PayJSON.optionalString(r["networkIconUrl"], path + ".networkIconUrl")
    }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject([
                "assetSymbol": .string(assetSymbol), "assetName": .string(assetName),
                "decimals": .number(String(decimals)),
                "iconUrl": PayJSON.optional(iconUrl), "networkName": PayJSON.optional(networkName),
                "networkIconUrl": PayJSON.optional(networkIconUrl),
            ]))
    }
}

/// An amount: `{"unit":"caip19/…"|"iso4217/…","value":"<minor units>","display":{…}}`.
public struct PayAmount: Sendable, Equatable, CustomStringConvertible {
    /// `iso4217/USD` or `caip19/eip155:8453/erc20:0x…`.
    public var unit: String
    /// The amount in the unit's minor units, as decimal text.
    public var value: String
    /// How to show it.
    public var display: AmountDisplay?

    /// Builds an amount.
    public init(unit: String, value: String, display: AmountDisplay?) {
        self.unit = unit
        self.value = value
        self.display = display
    }

    init(json: JSONValue?, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        unit = try PayJSON.string(r["unit"], path + ".unit")
        value = try PayJSON.string(r["value"], path + ".value")
        guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidResponse(
                "\(path).value: \(EchoedText.abbreviated(value).debugDescription) is not a decimal amount of minor units"
            )
        }
        display = try r["display"].flatMap { $0 == .null ? nil : $0 }.map { (v) throws(PayError) in
            try AmountDisplay(json: v, path: path + ".display")
        }
    }

    /// The wire object.
    public var json: JSONValue {
        var object = JSONObject(["unit": .string(unit), "value": .string(value)])
        if let display { object["display"] = display.json }
        return .object(object)
    }

    /// `1.50 USD`, `1.000000 USDC on Base`; the raw value and unit without display data.
    public var description: String {
        guard let display else { return "\(value) \(unit)" }
        var text = Self.decimal(minorUnits: value, decimals: display.decimals) + " " + display.assetSymbol
        if let network = display.networkName { text += " on \(network)" }
        return text
    }

    /// `value` with a decimal point `decimals` digits from the right (`"150"`, 2 → `"1.50"`).
    public static func decimal(minorUnits value: String, decimals: Int) -> String {
        guard decimals > 0 else { return value }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - value.count)) + value
        let split = padded.index(padded.endIndex, offsetBy: -decimals)
        return padded[..<split] + "." + padded[split...]
    }
}

/// The merchant: `{"name","iconUrl"?}`.
public struct MerchantInfo: Sendable, Equatable {
    /// Display name.
    public var name: String
    /// Icon URL.
    public var iconUrl: String?

    /// Builds merchant info.
    public init(name: String, iconUrl: String? = nil) {
        self.name = name
        self.iconUrl = iconUrl
    }

    init(json: JSONValue?, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        name = try PayJSON.string(r["name"], path + ".name")
        iconUrl = try PayJSON.optionalString(r["iconUrl"], path + ".iconUrl")
    }

    /// The wire object.
    public var json: JSONValue { .object(JSONObject(["name": .string(name), "iconUrl": PayJSON.optional(iconUrl)])) }
}

/// What the user pays and to whom: `{"status","amount","expiresAt","merchant","buyer"?}` (`info` of the options answer,
/// and `GET /v1/gateway/payment/{id}`).
public struct PaymentInfo: Sendable, Equatable {
    /// The payment's status.
    public var status: PaymentStatus
    /// The amount in the merchant's currency.
    public var amount: PayAmount
    /// When the payment expires (Unix seconds).
    public var expiresAt: Int64
    /// The merchant.
    public var merchant: MerchantInfo
    /// The buyer, once known (kept as JSON).
    public var buyer: JSONValue?

    /// Builds payment info.
    public init(
        status: PaymentStatus, amount: PayAmount, expiresAt: Int64, merchant: MerchantInfo, buyer: JSONValue? = nil
    ) {
        self.status = status
        self.amount = amount
        self.expiresAt = expiresAt
        self.merchant = merchant
        self.buyer = buyer
    }

    /// Reads the wire object; `path` prefixes field names in errors.
    public init(json: JSONValue?, path: String = "info") throws(PayError) {
        let r = try PayJSON.object(json, path)
        status = PaymentStatus(wireValue: try PayJSON.string(r["status"], path + ".status"))
        amount = try PayAmount(json: r["amount"], path: path + ".amount")
        expiresAt = try PayJSON.integer(r["expiresAt"], path + ".expiresAt")
        merchant = try MerchantInfo(json: r["merchant"], path: path + ".merchant")
        buyer = r["buyer"].flatMap { $0 == .null ? nil : $0 }
    }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject([
                "status": .string(status.wireValue), "amount": amount.json, "expiresAt": .number(String(expiresAt)),
                "merchant": merchant.json, "buyer": buyer ?? .null,
            ]))
    }
}

/// One action of an option: a wallet RPC call to make, or opaque `build` data to resolve with
/// `POST …/fetch` into wallet RPC calls.
public enum PayAction: Sendable, Equatable, CustomStringConvertible {
    /// `{"type":"walletRpc","data":{"chain_id","method","params":[…]}}`.
    case walletRpc(WalletRpcAction)
    /// `{"type":"build","data":{"data":"…"}}`.
    case build(data: String)

    /// Reads one wire action; `path` prefixes field names in errors.
    public init(json: JSONValue, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        let type = try PayJSON.string(r["type"], path + ".type")
        switch type {
        case "walletRpc":
            do { self = .walletRpc(try WalletRpcAction(json: json)) } catch {
                throw .invalidResponse("\(path): \(error)")
            }
        case "build":
            let data = try PayJSON.object(r["data"], path + ".data")
            self = .build(data: try PayJSON.string(data["data"], path + ".data.data"))
        default:
            throw .invalidResponse("\(path).type: unknown action type \(EchoedText.abbreviated(type).debugDescription)")
        }
    }

    /// The wire object (`chain_id` in snake case, `params` as a JSON array).
    public var json: JSONValue {
        switch self {
        case .walletRpc(let action):
            let params = (try? JSONValue(parsing: action.params)) ?? .string(action.params)
            return .object(
                JSONObject([
                    "type": .string("walletRpc"),
                    "data": .object(
                        JSONObject([
                            "chain_id": .string(action.chainId.description), "method": .string(action.method),
                            "params": params,
                        ])),
                ]))
        case .build(let data):
            return .object(
                JSONObject(["type": .string("build"), "data": .object(JSONObject(["data": .string(data)]))]))
        }
    }

    /// The wallet RPC action, or `nil` for `build`.
    public var walletRpcAction: WalletRpcAction? {
        if case .walletRpc(let action) = self { return action }
        return nil
    }

    /// `walletRpc eip155:8453 eth_signTypedData_v4` or `build`.
    public var description: String {
        switch self {
        case .walletRpc(let action): "walletRpc \(action.chainId) \(action.method)"
        case .build: "build"
        }
    }
}

/// One field of the (deprecated) field-list form of data collection.
public struct CollectDataField: Sendable, Equatable {
    /// Submission id, e.g. `fullName`.
    public var id: String
    /// Human-readable name.
    public var name: String
    /// Whether it must be filled in.
    public var required: Bool
    /// `text`, `date` or `checkbox`.
    public var type: String

    /// Builds a field.
    public init(id: String, name: String, required: Bool, type: String) {
        self.id = id
        self.name = name
        self.required = required
        self.type = type
    }

    init(json: JSONValue, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        id = try PayJSON.string(r["id"], path + ".id")
        name = try PayJSON.string(r["name"], path + ".name")
        required = try PayJSON.bool(r["required"], path + ".required")
        type = try PayJSON.string(r["type"], path + ".type")
    }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject(["id": .string(id), "name": .string(name), "required": .bool(required), "type": .string(type)]))
    }
}

/// Data the merchant must collect before the payment: `{"url"?,"schema"?,"fields":[…]}`.
public struct CollectData: Sendable, Equatable {
    /// The page the wallet shows (webview mode); see ``DataCollection/url(for:prefill:theme:themeVariables:)``.
    public var url: String?
    /// JSON Schema of the form data.
    public var schema: JSONValue?
    /// The deprecated field list.
    public var fields: [CollectDataField]

    /// Builds a data-collection requirement; a `schema` given as JSON text (the SDK's `schema: String?`) is
    /// read like an object (kept as text when it does not parse).
    public init(url: String?, schema: JSONValue? = nil, fields: [CollectDataField] = []) {
        self.url = url
        if case .string(let text)? = schema, let parsed = try? JSONValue(parsing: text) {
            self.schema = parsed
        } else {
            self.schema = schema
        }
        self.fields = fields
    }

    /// Reads the wire object at `path` (for errors); a `schema` sent as JSON text is parsed.
    public init(json: JSONValue, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        url = try PayJSON.optionalString(r["url"], path + ".url")
        switch r["schema"] {
        case nil, .null?: schema = nil
        case .string(let text)?:
            // The schema as JSON text: read like an object.
            do { schema = try JSONValue(parsing: text) } catch {
                throw .invalidResponse("\(path).schema: a JSON text that does not parse: \(error)")
            }
        case let other?: schema = other
        }
        var fields: [CollectDataField] = []
        for (i, field) in try PayJSON.optionalArray(r["fields"], path + ".fields").enumerated() {
            fields.append(try CollectDataField(json: field, path: "\(path).fields[\(i)]"))
        }
        self.fields = fields
    }

    /// The ids of the fields the merchant asks for: the field list plus the schema's `properties`, at the top
    /// level and in its `anyOf`, `oneOf` and `allOf` alternatives.
    public var fieldIds: [String] {
        var ids = fields.map(\.id)
        for level in schemaLevels {
            for key in level["properties"]?.objectValue?.keys ?? [] where !ids.contains(key) { ids.append(key) }
        }
        return ids
    }

    /// The ids of the fields the merchant requires (the only ones a prefill carries): required fields of the
    /// list plus the schema's `required` names, at the top level and in its `anyOf`, `oneOf` and `allOf`
    /// alternatives (a place of birth required in one alternative — the guide's `pobAddress` — is kept).
    public var requiredFieldIds: [String] {
        var ids = fields.filter(\.required).map(\.id)
        for level in schemaLevels {
            for name in level["required"]?.arrayValue ?? [] {
                if let key = name.stringValue, !ids.contains(key) { ids.append(key) }
            }
        }
        return ids
    }

    /// The schema and its direct `anyOf`, `oneOf` and `allOf` alternatives.
    private var schemaLevels: [JSONValue] {
        guard let schema else { return [] }
        var levels = [schema]
        for combinator in ["anyOf", "oneOf", "allOf"] { levels += schema[combinator]?.arrayValue ?? [] }
        return levels
    }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject([
                "url": PayJSON.optional(url), "schema": schema ?? .null, "fields": .array(fields.map(\.json)),
            ]))
    }
}

/// One way to pay: `{"id","account","amount","etaS","expiresAt"?,"actions":[…],"collectData"?}`.
public struct PaymentOption: Sendable, Equatable {
    /// The option id (up to 2^16 characters).
    public var id: String
    /// The CAIP-10 account that pays.
    public var account: String
    /// The token and amount.
    public var amount: PayAmount
    /// Estimated seconds to complete.
    public var etaS: Int64
    /// When the quote goes stale (Unix seconds); `nil` for options without a rate.
    public var expiresAt: Int64?
    /// What the wallet must do.
    public var actions: [PayAction]
    /// Data to collect first, when the account requires it.
    public var collectData: CollectData?

    /// Builds an option.
    public init(
        id: String, account: String, amount: PayAmount, etaS: Int64, expiresAt: Int64?, actions: [PayAction],
        collectData: CollectData? = nil
    ) {
        self.id = id
        self.account = account
        self.amount = amount
        self.etaS = etaS
        self.expiresAt = expiresAt
        self.actions = actions
        self.collectData = collectData
    }

    /// Reads the wire object; `path` prefixes field names in errors.
    public init(json: JSONValue, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        id = try PayJSON.string(r["id"], path + ".id")
        account = try PayJSON.string(r["account"], path + ".account")
        amount = try PayAmount(json: r["amount"], path: path + ".amount")
        etaS = try PayJSON.integer(r["etaS"], path + ".etaS")
        expiresAt = try PayJSON.optionalInteger(r["expiresAt"], path + ".expiresAt")
        var actions: [PayAction] = []
        for (i, action) in try PayJSON.array(r["actions"], path + ".actions").enumerated() {
            actions.append(try PayAction(json: action, path: "\(path).actions[\(i)]"))
        }
        self.actions = actions
        collectData = try r["collectData"].flatMap { $0 == .null ? nil : $0 }.map { (v) throws(PayError) in
            try CollectData(json: v, path: path + ".collectData")
        }
    }

    /// The account parsed, when it is valid CAIP-10.
    public var accountID: AccountID? { try? AccountID(account) }

    /// Whether some action is `build` and must be resolved with ``PayClient/requiredActions(paymentId:optionId:)``.
    public var needsFetch: Bool { actions.contains { $0.walletRpcAction == nil } }

    /// Whether the wallet must collect data first (a page URL or required fields).
    public var needsDataCollection: Bool {
        guard let collectData else { return false }
        return collectData.url != nil || !collectData.fields.isEmpty || collectData.schema != nil
    }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject([
                "id": .string(id), "account": .string(account), "amount": amount.json, "etaS": .number(String(etaS)),
                "expiresAt": expiresAt.map { .number(String($0)) } ?? .null, "actions": .array(actions.map(\.json)),
                "collectData": collectData?.json ?? .null,
            ]))
    }
}

/// The answer of `POST …/options`: `{"info"?,"options":[…],"collectData"?,"resultInfo"?}`, with the payment
/// it is for.
public struct PaymentOptionsResponse: Sendable, Equatable {
    /// The payment these options are for: the id ``PayClient/paymentOptions(paymentId:accounts:includePaymentInfo:refresh:)``
    /// asked about (or the wire's `paymentId` when an answer read on its own carries one).
    public var paymentId: String?
    /// Payment information (asked for with `includePaymentInfo=true`).
    public var info: PaymentInfo?
    /// The options, in the service's order of preference.
    public var options: [PaymentOption]
    /// Payment-level data collection.
    public var collectData: CollectData?
    /// Result information once the payment is complete (kept as JSON).
    public var resultInfo: JSONValue?

    /// Builds an answer.
    public init(
        info: PaymentInfo?, options: [PaymentOption], collectData: CollectData? = nil, resultInfo: JSONValue? = nil,
        paymentId: String? = nil
    ) {
        self.paymentId = paymentId
        self.info = info
        self.options = options
        self.collectData = collectData
        self.resultInfo = resultInfo
    }

    /// Reads the wire object.
    public init(json: JSONValue) throws(PayError) {
        let r = try PayJSON.object(json, "options response")
        paymentId = try PayJSON.optionalString(r["paymentId"], "paymentId")
        info = try r["info"].flatMap { $0 == .null ? nil : $0 }.map { (v) throws(PayError) in try PaymentInfo(json: v) }
        var options: [PaymentOption] = []
        for (i, option) in try PayJSON.array(r["options"], "options").enumerated() {
            options.append(try PaymentOption(json: option, path: "options[\(i)]"))
        }
        self.options = options
        collectData = try r["collectData"].flatMap { $0 == .null ? nil : $0 }.map { (v) throws(PayError) in
            try CollectData(json: v, path: "collectData")
        }
        resultInfo = r["resultInfo"].flatMap { $0 == .null ? nil : $0 }
    }

    /// The option called `id`.
    public func option(_ id: String) -> PaymentOption? { options.first { $0.id == id } }

    /// The wire object.
    public var json: JSONValue {
        var object = JSONObject([
            "info": info?.json ?? .null, "options": .array(options.map(\.json)),
            "collectData": collectData?.json ?? .null,
        ])
        if let resultInfo { object["resultInfo"] = resultInfo }
        if let paymentId { object["paymentId"] = .string(paymentId) }
        return .object(object)
    }
}

/// What was paid once a payment succeeded: `{"txId","optionAmount"}`.
public struct PaymentResultInfo: Sendable, Equatable {
    /// The settlement transaction.
    public var txId: String
    /// The amount paid, in the option's token.
    public var optionAmount: PayAmount

    /// Builds result info.
    public init(txId: String, optionAmount: PayAmount) {
        self.txId = txId
        self.optionAmount = optionAmount
    }

    init(json: JSONValue, path: String) throws(PayError) {
        let r = try PayJSON.object(json, path)
        txId = try PayJSON.string(r["txId"], path + ".txId")
        optionAmount = try PayAmount(json: r["optionAmount"], path: path + ".optionAmount")
    }

    /// The wire object.
    public var json: JSONValue { .object(JSONObject(["txId": .string(txId), "optionAmount": optionAmount.json])) }
}

/// The answer of `POST …/confirm` and `GET …/status`: `{"status","isFinal","pollInMs"?,"info"?}`.
public struct PaymentStatusResponse: Sendable, Equatable {
    /// The status.
    public var status: PaymentStatus
    /// Whether polling can stop.
    public var isFinal: Bool
    /// When to ask again, in milliseconds (absent once final).
    public var pollInMs: Int64?
    /// The settlement, once succeeded.
    public var info: PaymentResultInfo?

    /// Builds a status answer.
    public init(status: PaymentStatus, isFinal: Bool, pollInMs: Int64? = nil, info: PaymentResultInfo? = nil) {
        self.status = status
        self.isFinal = isFinal
        self.pollInMs = pollInMs
        self.info = info
    }

    /// Reads the wire object.
    public init(json: JSONValue) throws(PayError) {
        let r = try PayJSON.object(json, "status response")
        status = PaymentStatus(wireValue: try PayJSON.string(r["status"], "status"))
        isFinal = try PayJSON.bool(r["isFinal"], "isFinal")
        pollInMs = try PayJSON.optionalInteger(r["pollInMs"], "pollInMs")
        info = try r["info"].flatMap { $0 == .null ? nil : $0 }.map { (v) throws(PayError) in
            try PaymentResultInfo(json: v, path: "info")
        }
    }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject([
                "status": .string(status.wireValue), "isFinal": .bool(isFinal),
                "pollInMs": pollInMs.map { .number(String($0)) } ?? .null, "info": info?.json ?? .null,
            ]))
    }
}

/// Collected data sent with `confirm` (the field-list form): `{"fields":[{"id","value"}]}`.
public struct CollectedData: Sendable, Equatable {
    /// One answer.
    public struct Field: Sendable, Equatable {
        /// The field id.
        public var id: String
        /// The value, as text (`"true"` for a ticked checkbox).
        public var value: String

        /// Builds an answer.
        public init(id: String, value: String) {
            self.id = id
            self.value = value
        }
    }

    /// The answers, in order.
    public var fields: [Field]

    /// Builds collected data.
    public init(fields: [Field]) { self.fields = fields }

    /// Reads `{"fields":[{"id","value"}]}` or a flat object `{"fullName":"…","tosConfirmed":true,…}`
    /// (non-string values are written as their JSON text).
    public init(json: JSONValue) throws(PayError) {
        let r = try PayJSON.object(json, "collectedData")
        if let list = r["fields"], case .array(let elements) = list {
            var fields: [Field] = []
            for (i, element) in elements.enumerated() {
                let f = try PayJSON.object(element, "fields[\(i)]")
                fields.append(
                    Field(
                        id: try PayJSON.string(f["id"], "fields[\(i)].id"),
                        value: try PayJSON.string(f["value"], "fields[\(i)].value")))
            }
            self.fields = fields
        } else {
            fields = r.members.map { member in
                Field(id: member.key, value: member.value.stringValue ?? member.value.serialized)
            }
        }
    }

    /// The value of field `id`.
    public subscript(id: String) -> String? { fields.first { $0.id == id }?.value }

    /// The wire object.
    public var json: JSONValue {
        .object(
            JSONObject([
                "fields": .array(
                    fields.map { .object(JSONObject(["id": .string($0.id), "value": .string($0.value)])) })
            ]))
    }
}

extension PayError: LocatedJSONError {
    /// A Pay answer's field that is not what the endpoint returns: ``invalidResponse(_:)`` naming it.
    public init(path: String, problem: String) {
        self = .invalidResponse(path.isEmpty ? problem : "\(path): \(problem)")
    }
}

/// Strict reads of Pay JSON through ``JSONReader``; every mismatch is ``PayError/invalidResponse(_:)`` naming the
/// field.
enum PayJSON {
    typealias Reader = JSONReader<PayError>

    static func object(_ value: JSONValue?, _ path: String) throws(PayError) -> JSONObject {
        try Reader(value, at: path).object()
    }

    static func string(_ value: JSONValue?, _ path: String) throws(PayError) -> String {
        try Reader(value, at: path).string()
    }

    static func optionalString(_ value: JSONValue?, _ path: String) throws(PayError) -> String? {
        try Reader(value, at: path).ifNotNull?.string()
    }

    static func bool(_ value: JSONValue?, _ path: String) throws(PayError) -> Bool {
        try Reader(value, at: path).bool()
    }

    static func integer(_ value: JSONValue?, _ path: String) throws(PayError) -> Int64 {
        Int64(try Reader(value, at: path).integer())
    }

    static func optionalInteger(_ value: JSONValue?, _ path: String) throws(PayError) -> Int64? {
        try Reader(value, at: path).ifNotNull.map { (json) throws(PayError) in Int64(try json.integer()) }
    }

    static func array(_ value: JSONValue?, _ path: String) throws(PayError) -> [JSONValue] {
        try Reader(value, at: path).elements().compactMap(\.value)
    }

    static func optionalArray(_ value: JSONValue?, _ path: String) throws(PayError) -> [JSONValue] {
        try Reader(value, at: path).ifNotNull?.elements().compactMap(\.value) ?? []
    }

    static func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
}
