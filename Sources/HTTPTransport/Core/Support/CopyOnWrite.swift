/// A value type's fields behind one reference, copied only when changed while shared: a
/// request, response or error handed from step to step then costs one reference, not a copy
/// of every field. Used by `RawRequest`, `RawResponse` and `HTTPTransportError`.
struct CopyOnWrite<Fields: Sendable>: Sendable {
    /// Changed only while uniquely referenced (see `fields`' `_modify`), so sharing it is safe.
    /// For the same reason no two accesses to `fields` can overlap, so it opts out of the
    /// runtime's exclusivity bookkeeping (a thread-local lookup on every read of a field).
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    init(_ fields: Fields) { storage = Storage(fields) }

    var fields: Fields {
        get { storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }
}
