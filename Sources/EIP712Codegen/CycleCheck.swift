import EIP712

/// Finds structs that contain each other by value (no array between): valid EIP-712, but no Swift struct
/// can hold itself. Through an array (`Person[] children`) is fine.
enum CycleCheck {
    /// The first cycle found, as type indices with the first repeated at the end, or nil.
    static func firstCycle(fields: [[FieldType]]) -> [Int]? {
        var state = [UInt8](repeating: 0, count: fields.count)  // 0 unvisited, 1 on the path, 2 done
        var path: [Int] = []
        func visit(_ index: Int) -> [Int]? {
            state[index] = 1
            path.append(index)
            for case .structure(let next) in fields[index] {
                if state[next] == 1, let start = path.firstIndex(of: next) { return Array(path[start...]) + [next] }
                if state[next] == 0, let cycle = visit(next) { return cycle }
            }
            path.removeLast()
            state[index] = 2
            return nil
        }
        for index in fields.indices where state[index] == 0 {
            if let cycle = visit(index) { return cycle }
        }
        return nil
    }
}
