import EthereumPrimitives

extension ERC7821Batch {
    /// Reads the calls back from `execute(bytes32,bytes)` calldata in the single-batch mode.
    ///
    /// Strict and never trapping: every offset and length is bounds-checked before it is used, and only the
    /// canonical encoding (the one ``calldata`` makes: offsets in order, zero padding, nothing trailing) is
    /// accepted, so the calls a reviewer is shown are exactly the bytes that will run.
    ///
    /// - Throws: ``ERC7821BatchError`` naming the field and its byte position in `calldata`.
    public init(decoding calldata: [UInt8]) throws(ERC7821BatchError) {
        guard calldata.count >= 4, Array(calldata[0..<4]) == Self.executeSelector else {
            throw .wrongSelector(found: Array(calldata.prefix(4)))
        }
        let reader = Reader(bytes: calldata)
        let mode = try reader.word(at: 4, field: "mode")
        guard mode == Self.singleBatchMode else { throw .unsupportedMode(mode) }
        // executionData: a `bytes` argument whose offset counts from the end of the selector.
        let dataStart = try reader.pointer(base: 4, at: 36, field: "executionData offset")
        let dataLength = try reader.integer(at: dataStart, field: "executionData length")
        let data = dataStart + 32
        guard dataLength <= calldata.count - data else {
            throw .truncated(
                field: "executionData", position: data, needed: dataLength, available: calldata.count - data)
        }
        let end = data + dataLength
        // abi.encode(Call[]): an offset to the array, its length, then one offset per call.
        let array = try reader.pointer(base: data, at: data, field: "calls offset", end: end)
        let count = try reader.integer(at: array, field: "calls length", end: end)
        let heads = array + 32
        guard count <= (end - heads) / 32 else {
            throw .truncated(field: "calls", position: heads, needed: 32 * count, available: end - heads)
        }
        var calls: [Call] = []
        calls.reserveCapacity(count)
        for index in 0..<count {
            let field = "calls[\(index)]"
            let tuple = try reader.pointer(base: heads, at: heads + 32 * index, field: "\(field) offset", end: end)
            let to = try reader.address(at: tuple, field: "\(field).target", end: end)
            let value = try reader.word(at: tuple + 32, field: "\(field).value", end: end)
            let bytes = try reader.pointer(base: tuple, at: tuple + 64, field: "\(field).data offset", end: end)
            let length = try reader.integer(at: bytes, field: "\(field).data length", end: end)
            guard length <= end - (bytes + 32) else {
                throw .truncated(
                    field: "\(field).data", position: bytes + 32, needed: length, available: end - (bytes + 32))
            }
            calls.append(
                Call(to: to, value: UInt256(word: value), data: Array(calldata[(bytes + 32)..<(bytes + 32 + length)])))
        }
        self.init(calls: calls)
        let canonical = self.calldata
        if canonical != calldata {
            let position = zip(canonical, calldata).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            throw .nonCanonical(position: position ?? min(canonical.count, calldata.count))
        }
    }
}

/// Bounds-checked reads of 32-byte ABI words from one byte array; positions count from its start.
private struct Reader {
    let bytes: [UInt8]

    /// The word at `position`, which must end by `end` (default: the end of the bytes).
    func word(at position: Int, field: String, end: Int? = nil) throws(ERC7821BatchError) -> Bytes32 {
        let end = end ?? bytes.count
        guard position >= 0, position <= end - 32 else {
            throw .truncated(field: field, position: position, needed: 32, available: max(0, end - position))
        }
        return Bytes32(bytes[position..<(position + 32)]) ?? .zero
    }

    /// The word at `position` as an `Int`, when it is below 2³² (every offset and length of real calldata is).
    func integer(at position: Int, field: String, end: Int? = nil) throws(ERC7821BatchError) -> Int {
        let word = try self.word(at: position, field: field, end: end).bytes
        guard word.prefix(28).allSatisfy({ $0 == 0 }) else { throw .tooLarge(field: field, position: position) }
        return word.suffix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    /// `base` plus the offset at `position`: where a dynamic value starts.
    func pointer(base: Int, at position: Int, field: String, end: Int? = nil) throws(ERC7821BatchError) -> Int {
        base + (try integer(at: position, field: field, end: end))
    }

    /// The address word at `position` (twelve zero bytes, then the address).
    func address(at position: Int, field: String, end: Int? = nil) throws(ERC7821BatchError) -> Address {
        let word = try self.word(at: position, field: field, end: end).bytes
        guard word.prefix(12).allSatisfy({ $0 == 0 }), let address = Address(bytes: word.suffix(20)) else {
            throw .addressNotPadded(field: field, position: position)
        }
        return address
    }
}
