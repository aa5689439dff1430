import EIP712
import EthereumPrimitives

/// One struct to generate: its EIP-712 name, `encodeType`, type hash and members, all as the package's
/// `EIP712Schema` computed them.
struct StructModel {
    struct Field {
        /// The EIP-712 name (also the Swift property name, in backticks when a keyword).
        var name: String
        /// The type as written in the schema, e.g. `Asset[]`.
        var typeName: String
        var type: FieldType
    }

    var name: String
    var encodeType: String
    var typeHash: Bytes32
    var fields: [Field]
}
