/// The transfers on a `TransferLoop`'s multi handle, found from their easy handles without
/// hashing: each easy handle knows its place in the list (`EasyHandle.loopSlot`), and libcurl
/// gives the `EasyHandle` back for its pointer (`EasyHandle.owner(of:)`). (A dictionary keyed by
/// the pointer cost an async GET ~0.5k instructions: a hash on adding, finding and removing.)
/// The loop's thread only.
struct RunningTransfers {
    /// In no particular order (a removal moves the last one into the gap).
    private(set) var all: [LoopTransfer] = []

    var isEmpty: Bool { all.isEmpty }

    mutating func add(_ transfer: LoopTransfer) {
        transfer.handle.loopSlot = all.count
        all.append(transfer)
    }

    /// Whether `transfer` runs (not another transfer now on its easy handle).
    func contains(_ transfer: LoopTransfer) -> Bool {
        slot(of: transfer.handle).map { all[$0] === transfer } ?? false
    }

    /// Takes `transfer` out; false when it was not running.
    mutating func remove(_ transfer: LoopTransfer) -> Bool {
        guard let slot = slot(of: transfer.handle), all[slot] === transfer else { return false }
        take(at: slot)
        return true
    }

    /// Takes out the transfer running on the libcurl handle `curl`, if one is.
    mutating func remove(on curl: UnsafeMutableRawPointer) -> LoopTransfer? {
        guard let handle = EasyHandle.owner(of: curl), let slot = slot(of: handle) else { return nil }
        return take(at: slot)
    }

    /// The place of the transfer running on `handle` (checked: a slot is the loop's own only
    /// while its transfer is in it).
    private func slot(of handle: EasyHandle) -> Int? {
        let slot = handle.loopSlot
        guard slot >= 0, slot < all.count, all[slot].handle === handle else { return nil }
        return slot
    }

    @discardableResult
    private mutating func take(at slot: Int) -> LoopTransfer {
        let last = all.count - 1
        if slot != last {
            all.swapAt(slot, last)
            all[slot].handle.loopSlot = slot
        }
        let taken = all.removeLast()
        taken.handle.loopSlot = -1
        return taken
    }
}
