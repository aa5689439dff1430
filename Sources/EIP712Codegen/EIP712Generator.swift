import EIP712
import EthereumPrimitives

/// Turns a `*.eip712.json` schema file into Swift: one ``EIP712Struct`` per EIP-712 type, with members of
/// Swift types, `encodeType` and the type hash computed here by the package's own `EIP712Schema` (so the
/// generated code hashes nothing at first use), and `encodeData` writing words straight into Keccak-256.
public enum EIP712Generator {
    /// The Swift source for the schema file named `fileName` (used in errors and the generated header).
    public static func swiftSource(fileName: String, contents: [UInt8]) throws(CodegenError) -> String {
        let file = try SchemaFile(name: fileName, contents: contents)
        let schema = try compile(file)
        let names = schema.typeNames
        if let namespace = file.namespace, let problem = SwiftIdentifier.problem(withTypeName: namespace) {
            throw CodegenError(.invalidIdentifier(namespace, problem), file: fileName)
        }
        var fieldTypes: [[FieldType]] = []
        var models: [StructModel] = []
        for name in names {
            if let problem = SwiftIdentifier.problem(withTypeName: name) {
                throw CodegenError(.invalidIdentifier(name, problem), file: fileName, typeName: name)
            }
            let fields = schema.fields(of: name) ?? []
            for field in fields {
                if let problem = SwiftIdentifier.problem(withFieldName: field.name) {
                    throw CodegenError(
                        .invalidIdentifier(field.name, problem), file: fileName, typeName: name, fieldName: field.name)
                }
            }
            fieldTypes.append(fields.map(\.type))
            models.append(
                StructModel(
                    name: name, encodeType: schema.encodeType(of: name) ?? "",
                    typeHash: schema.typeHash(of: name) ?? .zero,
                    fields: fields.map { StructModel.Field(name: $0.name, typeName: $0.typeName, type: $0.type) }))
        }
        if let cycle = CycleCheck.firstCycle(fields: fieldTypes) {
            throw CodegenError(.cyclicType(cycle.map { names[$0] }), file: fileName, typeName: names[cycle[0]])
        }
        let wanted = generatedIndices(schema: schema, primaryType: file.primaryType, fieldTypes: fieldTypes)
        let emitter = SourceEmitter(
            fileName: fileName, access: file.access, namespace: file.namespace,
            types: SwiftFieldType(structNames: names.map(SwiftIdentifier.spelled)))
        return emitter.source(wanted.map { models[$0] })
    }

    /// Compiles the file's types with the runtime's own compiler: one set of EIP-712 rules.
    private static func compile(_ file: SchemaFile) throws(CodegenError) -> EIP712Schema {
        do {
            return try EIP712Schema(types: file.types, domain: nil, primaryType: file.primaryType)
        } catch {
            var typeName: String?
            var fieldName: String?
            if error.path.count >= 2, case .key(let name) = error.path[1] {
                typeName = name
                if error.path.count >= 3, case .index(let index) = error.path[2] {
                    fieldName = file.fieldName(of: name, at: index)
                }
            } else if error.path.first == .key("primaryType") {
                typeName = file.primaryType
            }
            throw CodegenError(.schema(error.reason), file: file.name, typeName: typeName, fieldName: fieldName)
        }
    }

    /// Declaration order; with a primary type only it, what it refers to and `EIP712Domain`.
    private static func generatedIndices(schema: EIP712Schema, primaryType: String?, fieldTypes: [[FieldType]])
        -> [Int]
    {
        guard let primaryType, let primary = schema.index(of: primaryType) else { return Array(fieldTypes.indices) }
        var wanted: Set<Int> = []
        func reach(_ index: Int) {
            guard wanted.insert(index).inserted else { return }
            for type in fieldTypes[index] { if let referenced = structIndex(type) { reach(referenced) } }
        }
        reach(primary)
        if let domain = schema.index(of: EIP712Schema.domainTypeName) { wanted.insert(domain) }
        return fieldTypes.indices.filter { wanted.contains($0) }
    }

    private static func structIndex(_ type: FieldType) -> Int? {
        switch type {
        case .structure(let index): index
        case .array(let element, _): structIndex(element)
        default: nil
        }
    }
}
