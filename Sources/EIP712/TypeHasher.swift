import EthereumPrimitives

/// `encodeType` and `typeHash` over a schema's tables: a struct's own segment `Name(type name,…)`,
/// then the segments of its transitive struct dependencies in code-point order of their names.
enum TypeHasher {
    /// The struct a member type refers to (through any array dimensions), if any.
    static func structIndex(_ encoding: Encoding, arrays: [ArraySpec]) -> Int? {
        switch encoding {
        case .structure(let index): index
        case .array(let index): structIndex(arrays[index].element, arrays: arrays)
        default: nil
        }
    }

    /// Dependency lists longer than this are sorted with the standard library's sort.
    static let insertionSortLimit = 16

    /// The most `encodeType` bytes hashed while compiling one schema (1 MiB).
    ///
    /// A struct's `encodeType` repeats every struct it depends on, so a hostile `types` object (a
    /// chain of thousands of structs, say) makes the total grow with the square of its size: half a
    /// megabyte of JSON could demand gigabytes of hashing. Real schemas hash a few kilobytes.
    static let maximumEncodeTypeBytes = 1 << 20

    /// Calls `body` with the struct indices of `encodeType(index)`: `index` first, then its transitive
    /// dependencies sorted by name. Uses stack memory for small schemas.
    static func withEncodeTypeOrder<R, E: Error>(
        _ index: Int, structs: [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arrays: [ArraySpec],
        arena: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<Int>) throws(E) -> R
    ) throws(E) -> R {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: structs.count) { order throws(E) in
            try withUnsafeTemporaryAllocation(of: Bool.self, capacity: structs.count) { seen throws(E) in
                seen.initialize(repeating: false)
                seen[index] = true
                order[0] = index
                var count = 1
                var next = 0
                // Breadth-first: `order` is both the queue and the result.
                while next < count {
                    for field in fields[structs[order[next]].fields] {
                        if let referenced = structIndex(field.encoding, arrays: arrays), !seen[referenced] {
                            seen[referenced] = true
                            order[count] = referenced
                            count += 1
                        }
                    }
                    next += 1
                }
                func name(_ i: Int) -> UnsafeBufferPointer<UInt8> {
                    let span = structs[i].name
                    return UnsafeBufferPointer(rebasing: arena[Int(span.start)..<Int(span.end)])
                }
                // Insertion sort of the dependencies (schemas have few); a full sort for many.
                if count > insertionSortLimit {
                    var dependencies = UnsafeMutableBufferPointer(rebasing: order[1..<count])
                    dependencies.sort { SchemaArena.precedes(name($0), name($1)) }
                } else if count > 2 {
                    for i in 2..<count {
                        let item = order[i]
                        var j = i
                        while j > 1 && SchemaArena.precedes(name(item), name(order[j - 1])) {
                            order[j] = order[j - 1]
                            j -= 1
                        }
                        order[j] = item
                    }
                }
                return try body(UnsafeBufferPointer(rebasing: order[0..<count]))
            }
        }
    }

    /// Feeds the `encodeType` bytes of struct `index` to `sink`, segment by segment.
    static func encodeType(
        _ index: Int, structs: [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arrays: [ArraySpec],
        arena: UnsafeBufferPointer<UInt8>, _ sink: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        withEncodeTypeOrder(index, structs: structs, fields: fields, arrays: arrays, arena: arena) { order in
            for structIndex in order {
                let span = structs[structIndex].segment
                sink(UnsafeBufferPointer(rebasing: arena[Int(span.start)..<Int(span.end)]))
            }
        }
    }

    /// Keccak-256 of the segments of `order` (an `encodeType` order) back to back.
    static func hashSegments(
        _ order: some Sequence<Int>, structs: [EIP712Schema.StructSpec], arena: UnsafeBufferPointer<UInt8>
    ) -> Bytes32 {
        var hasher = Keccak256.Hasher()
        for structIndex in order {
            let span = structs[structIndex].segment
            hasher.update(
                UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(arena)[Int(span.start)..<Int(span.end)]))
        }
        return hasher.finalize()
    }

    /// `keccak256(encodeType(index))`.
    static func typeHash(
        _ index: Int, structs: [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arrays: [ArraySpec],
        arena: UnsafeBufferPointer<UInt8>
    ) -> Bytes32 {
        withEncodeTypeOrder(index, structs: structs, fields: fields, arrays: arrays, arena: arena) {
            hashSegments($0, structs: structs, arena: arena)
        }
    }

    /// Computes the type hash of `roots` and of every struct their `encodeType` mentions.
    ///
    /// - Throws: ``EIP712Error/Reason/typesTooLarge(limit:)`` (at `types`) once the `encodeType`
    ///   strings hashed so far exceed ``maximumEncodeTypeBytes``.
    static func hashReachable(
        from roots: [Int], structs: inout [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec],
        arrays: [ArraySpec], arena: UnsafeBufferPointer<UInt8>
    ) throws(EIP712Error) {
        var hashedBytes = 0
        func hash(_ order: UnsafeBufferPointer<Int>, _ structs: [EIP712Schema.StructSpec]) throws(EIP712Error)
            -> Bytes32
        {
            for index in order { hashedBytes += structs[index].segment.count }
            guard hashedBytes <= maximumEncodeTypeBytes else {
                throw EIP712Error(.typesTooLarge(limit: maximumEncodeTypeBytes), at: [.key("types")])
            }
            return hashSegments(order, structs: structs, arena: arena)
        }
        for root in roots where structs[root].typeHash == nil {
            let reachable = withEncodeTypeOrder(root, structs: structs, fields: fields, arrays: arrays, arena: arena) {
                Array($0)
            }
            // The root's own order is at hand; each dependency has its own (a subset, sorted again).
            structs[root].typeHash = try reachable.withUnsafeBufferPointer { order throws(EIP712Error) in
                try hash(order, structs)
            }
            for index in reachable.dropFirst() where structs[index].typeHash == nil {
                let typeHash = try withEncodeTypeOrder(
                    index, structs: structs, fields: fields, arrays: arrays, arena: arena
                ) { order throws(EIP712Error) in try hash(order, structs) }
                structs[index].typeHash = typeHash
            }
        }
    }
}
