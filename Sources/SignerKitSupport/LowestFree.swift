/// The lowest value that a sorted list of taken values leaves free: how the journals pick a nonce, so a
/// released one is handed out again before any higher one.
package enum LowestFree {
    /// The lowest value at or above `floor` that `taken` (ascending; repeats and values below `floor` allowed)
    /// does not hold, where `successor` gives the next value (`nil` past the largest); `nil` when every value
    /// from `floor` up is taken.
    package static func value<T: Comparable>(
        atLeast floor: T, notIn taken: some Sequence<T>, successor: (T) -> T?
    ) -> T? {
        var candidate = floor
        for value in taken where value >= candidate {
            guard value == candidate else { break }
            guard let next = successor(candidate) else { return nil }
            candidate = next
        }
        return candidate
    }
}
