import EthereumPrimitives

/// One value an ``EncodableHasher`` is hashing: what its encoder and containers wrote so far, finished into
/// its word once the value (or, for a nested container, its parent) is done.
///
/// Its state is `@exclusivity(unchecked)`: only the one `encode(to:)` call that hashes the value reaches it,
/// synchronously on one thread, and the dynamic checks of a class's stored properties cost about a tenth of an
/// `Encodable` Ronin Order's digest (5.5 → 5.0 µs, measured in the benchmark executable).
final class EncodableHashingSlot {
    /// A struct member or array element: a word already, or a nested container's slot finished later.
    enum Entry {
        case word(Bytes32)
        case slot(EncodableHashingSlot)
    }

    /// What the value encoded as so far (the last container asked for decides, as in `JSONValueEncoder`).
    enum Shape {
        case empty, scalar, object, array
    }

    let encoding: Encoding
    /// The hasher this value belongs to (its containers reach it through the slot: one reference to pass).
    let hasher: EncodableHasher
    @exclusivity(unchecked) private(set) var shape = Shape.empty
    @exclusivity(unchecked) private var scalar = Bytes32.zero
    /// An entry as stored: a plain value (no reference counting when members are set and read).
    private struct Stored {
        static let empty = Stored(word: .zero, nested: -2)
        var word: Bytes32
        /// -2: not set; -1: `word`; else the index of its slot in ``nestedSlots``.
        var nested: Int32
    }

    /// Struct members by field position (objects), or elements in order (arrays).
    @exclusivity(unchecked) private var entries: [Stored] = []
    /// Slots of members and elements that nested containers fill (rare).
    @exclusivity(unchecked) private var nestedSlots: [EncodableHashingSlot] = []
    /// Where the next member is looked for first: after the last one found.
    @exclusivity(unchecked) private var expectedField = 0
    /// The first error met by a call that cannot throw (a container of the wrong kind, an undeclared member of
    /// a nested container); thrown when the value finishes.
    @exclusivity(unchecked) private(set) var deferredError: EIP712Error?

    /// For a struct value: its first field in the schema's field table, and how many it has.
    private let firstField: Int
    private let fieldCount: Int

    init(encoding: Encoding, hasher: EncodableHasher) {
        self.encoding = encoding
        self.hasher = hasher
        if case .structure(let index) = encoding {
            let fields = hasher.schema.structs[index].fields
            (firstField, fieldCount) = (fields.lowerBound, fields.count)
        } else {
            (firstField, fieldCount) = (0, 0)
        }
    }

    /// The position of the member `key` in a struct value, and its type; nil for an undeclared member (or a
    /// value that is no struct).
    func field(_ key: String) -> (position: Int, encoding: Encoding)? {
        guard
            let position = hasher.fieldPosition(of: key, first: firstField, count: fieldCount, expected: expectedField)
        else { return nil }
        return (position, hasher.fieldEncoding(at: firstField + position))
    }

    /// The struct this value is, when its type is one.
    var structIndex: Int? {
        if case .structure(let index) = encoding { return index }
        return nil
    }

    /// The element type and fixed length of this value's array type, when it is one.
    var arraySpec: ArraySpec? {
        if case .array(let index) = encoding { return hasher.schema.arrays[index] }
        return nil
    }

    /// Keeps `error` (the first one) to throw when the value finishes.
    func keep(_ error: EIP712Error) {
        if deferredError == nil { deferredError = error }
    }

    /// Makes the value a scalar with `word`.
    func setScalar(_ word: Bytes32) {
        shape = .scalar
        scalar = word
        entries = []
        nestedSlots = []
    }

    /// Makes the value an object or array (keeping what it holds when it already is one). A struct value asked
    /// for an array (or a scalar value for either) records the JSON path's kind error.
    func become(_ target: Shape) {
        guard shape != target else { return }
        shape = target
        entries = target == .object ? Array(repeating: .empty, count: fieldCount) : []
        nestedSlots = []
        expectedField = 0
        switch (encoding, target) {
        case (.structure, .object), (.array, .array): return
        case (.structure, _): keep(EIP712Error(.wrongKind(expected: "object", actual: JSONValue.kindName(of: kind))))
        case (.array, _): keep(EIP712Error(.wrongKind(expected: "array", actual: JSONValue.kindName(of: kind))))
        default: keep(scalarKindError)
        }
    }

    /// The JSON kind this value has so far.
    private var kind: JSONKind {
        switch shape {
        case .empty, .object: .object
        case .array: .array
        case .scalar: .string
        }
    }

    private var emptyInput: ScalarWord.Input {
        ScalarWord.Input(kind: kind, text: UnsafeBufferPointer(start: nil, count: 0), flag: false)
    }

    /// The error ``ScalarWord`` gives a scalar member that holds this container.
    private var scalarKindError: EIP712Error {
        do throws(EIP712Error) {
            _ = try ScalarWord.word(encoding, emptyInput)
            return EIP712Error(.missing)
        } catch { return error }
    }

    /// Sets member `position` of a struct value (replacing an earlier one).
    func setMember(_ position: Int, _ entry: Entry) {
        entries[position] = store(entry)
        expectedField = position + 1
    }

    /// Appends an element of an array value.
    func appendElement(_ entry: Entry) { entries.append(store(entry)) }

    private func store(_ entry: Entry) -> Stored {
        switch entry {
        case .word(let word):
            return Stored(word: word, nested: -1)
        case .slot(let slot):
            nestedSlots.append(slot)
            return Stored(word: .zero, nested: Int32(nestedSlots.count - 1))
        }
    }

    /// Elements so far (arrays).
    var count: Int { shape == .array ? entries.count : 0 }

    /// The value's word: a scalar's own, a struct's `hashStruct` (every member present), an array's Keccak-256
    /// of its elements' words (as many as a fixed length requires). A value that encoded nothing is an empty
    /// object, as in `JSONValueEncoder`.
    func finish() throws(EIP712Error) -> Bytes32 {
        if let deferredError { throw deferredError }
        switch shape {
        case .scalar:
            return scalar
        case .empty:
            if structIndex != nil {
                become(.object)
                return try finish()
            }
            throw encoding.isArray
                ? EIP712Error(.wrongKind(expected: "array", actual: "object")) : scalarKindError
        case .object:
            // `become` deferred an error unless this is a struct value.
            guard let index = structIndex else { throw scalarKindError }
            var words = Keccak256.Hasher()
            words.update(hasher.schema.typeHash(index))
            for position in entries.indices {
                guard entries[position].nested != Stored.empty.nested else {
                    throw EIP712Error(.missing, at: [.key(hasher.fieldName(position, inStruct: index))])
                }
                do throws(EIP712Error) { words.update(try word(entries[position])) } catch {
                    throw error.under(.key(hasher.fieldName(position, inStruct: index)))
                }
            }
            return words.finalize()
        case .array:
            guard let spec = arraySpec else { throw scalarKindError }
            if let length = spec.length, entries.count != length {
                throw EIP712Error(.arrayLength(expected: length, actual: entries.count))
            }
            var words = Keccak256.Hasher()
            for position in entries.indices {
                do throws(EIP712Error) { words.update(try word(entries[position])) } catch {
                    throw error.under(.index(position))
                }
            }
            return words.finalize()
        }
    }

    private func word(_ entry: Stored) throws(EIP712Error) -> Bytes32 {
        entry.nested < 0 ? entry.word : try nestedSlots[Int(entry.nested)].finish()
    }
}

extension Encoding {
    var isArray: Bool {
        if case .array = self { return true }
        return false
    }
}
