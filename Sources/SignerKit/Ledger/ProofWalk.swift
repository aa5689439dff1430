/// The walk up the tree that RFC 9162's proof verifications share (§2.1.3.2 steps 2–4, §2.1.4.2 steps 3–6):
/// `fn` is the node being proven, `sn` the last node of the tree, both shifted one level up per proof hash.
struct ProofWalk {
    /// The index of the node whose root is being computed, at the current level.
    var fn: Int
    /// The index of the tree's last node, at the current level.
    var sn: Int

    /// How many proof hashes the walk takes from here until `sn` reaches 0 (the proof's exact length).
    var remainingSteps: Int {
        var walk = self
        var steps = 0
        while walk.sn != 0 {
            _ = walk.step()
            steps += 1
        }
        return steps
    }

    /// Takes one proof hash: returns whether it is the *left* sibling (LSB(fn) is set, or fn = sn: the node is
    /// a right child or the last one of its level), skipping the levels where the node has no sibling, then
    /// moves one level up.
    mutating func step() -> Bool {
        let isLeft = fn & 1 == 1 || fn == sn
        if isLeft {
            while fn & 1 == 0, fn != 0 {
                fn >>= 1
                sn >>= 1
            }
        }
        fn >>= 1
        sn >>= 1
        return isLeft
    }
}
